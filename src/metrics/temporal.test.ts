import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { BufferedMetricUpdate } from '@temporalio/worker';
import { promLabels, promName, TemporalMetrics } from './temporal.js';

const metric = (name: string, kind: 'counter' | 'histogram' | 'gauge' | 'up-down-counter', unit = '') =>
  ({ name, kind, unit, description: `${name} help`, valueType: 'int' }) as BufferedMetricUpdate['metric'];

describe('the Temporal SDK metrics bridge', () => {
  it('renders counters, gauges and histograms with the attribute sets the SDK gives each update', async () => {
    const registry = new Registry();
    const bridge = new TemporalMetrics(registry);
    const polls = metric('temporal_request', 'counter');
    const slots = metric('temporal_worker_task_slots_available', 'gauge');
    const latency = metric('temporal_activity_execution_latency', 'histogram', 's');
    bridge.apply([
      { metric: polls, value: 1, attributes: { namespace: 'default', operation: 'PollActivityTaskQueue' } },
      { metric: polls, value: 2, attributes: { namespace: 'default', operation: 'PollActivityTaskQueue' } },
      // Same metric, another set of keys: a series of its own.
      { metric: polls, value: 1, attributes: { namespace: 'default', operation: 'Poll', task_queue: 'q' } },
      { metric: slots, value: 8, attributes: { worker_type: 'ActivityWorker' } },
      { metric: slots, value: 5, attributes: { worker_type: 'ActivityWorker' } },
      { metric: latency, value: 0.02, attributes: { activity_type: 'processChunk' } },
      { metric: latency, value: 3, attributes: { activity_type: 'processChunk' } },
    ]);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE temporal_request_total counter');
    expect(text).toContain('temporal_request_total{namespace="default",operation="PollActivityTaskQueue"} 3');
    expect(text).toContain('temporal_request_total{namespace="default",operation="Poll",task_queue="q"} 1');
    // A gauge keeps the last value set.
    expect(text).toContain('temporal_worker_task_slots_available{worker_type="ActivityWorker"} 5');
    expect(text).toContain('# TYPE temporal_activity_execution_latency_seconds histogram');
    expect(text).toContain(
      'temporal_activity_execution_latency_seconds_bucket{activity_type="processChunk",le="0.025"} 1',
    );
    expect(text).toContain(
      'temporal_activity_execution_latency_seconds_bucket{activity_type="processChunk",le="2.5"} 1',
    );
    expect(text).toContain('temporal_activity_execution_latency_seconds_bucket{activity_type="processChunk",le="5"} 2');
    expect(text).toContain(
      'temporal_activity_execution_latency_seconds_bucket{activity_type="processChunk",le="+Inf"} 2',
    );
    expect(text).toContain('temporal_activity_execution_latency_seconds_sum{activity_type="processChunk"} 3.02');
    expect(text).toContain('temporal_activity_execution_latency_seconds_count{activity_type="processChunk"} 2');
    // Later updates add to the series already rendered.
    bridge.apply([
      { metric: polls, value: 4, attributes: { namespace: 'default', operation: 'PollActivityTaskQueue' } },
    ]);
    expect(await registry.metrics()).toContain(
      'temporal_request_total{namespace="default",operation="PollActivityTaskQueue"} 7',
    );
  });

  it('makes names and label names Prometheus can read', () => {
    expect(promName('temporal.sticky-cache size')).toBe('temporal_sticky_cache_size');
    expect(promName('9lives')).toBe('_9lives');
    expect(promLabels({ 'task-queue': 'q', ok: true, n: 3, gone: undefined, __reserved: 'x' })).toEqual({
      task_queue: 'q',
      ok: 'true',
      n: '3',
      _reserved: 'x',
    });
  });
});
