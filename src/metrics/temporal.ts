import type { BufferedMetricUpdate } from '@temporalio/worker';
import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/**
 * The Temporal SDK's own worker metrics (task slots, poll and schedule-to-start latencies, sticky
 * cache, request failures...) in our registry. The SDK's core writes them to a `MetricsBuffer`
 * (Runtime.install in temporal/runtime.ts), which is drained here before each scrape and every
 * second, and kept as Prometheus series under their SDK names (`temporal_…`, counters with
 * `_total`, durations in seconds with `_seconds`).
 *
 * Why the buffer rather than the SDK's own Prometheus listener (`bindAddress`): one port and one
 * document per process, no second listener to choose a port for (and clash) on hosts running
 * several workers, and the series sit next to ours in one scrape.
 *
 * The series are kept by hand rather than as prom-client metrics because one SDK metric arrives
 * with different attribute sets (with and without `activity_type`, say), which prom-client's
 * fixed label names cannot take.
 */

/** Seconds, from a sub-millisecond poll to a task that waited a minute in its queue. */
export const TEMPORAL_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Labels = Record<string, string>;
interface Series<T> {
  labels: Labels;
  value: T;
}
interface HistogramValue {
  counts: number[];
  sum: number;
  count: number;
}
interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  series: Map<string, Series<number | HistogramValue>>;
}

/** A Prometheus name from an SDK name: letters, digits and underscores only. */
export function promName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** Prometheus label names; values as strings (the SDK's are strings, numbers or booleans). */
export function promLabels(attributes: Record<string, unknown>): Labels {
  const labels: Labels = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (v === undefined || v === null) continue;
    labels[promName(k).replace(/^__/, '_')] = String(v);
  }
  return labels;
}

function familyName(u: BufferedMetricUpdate): string {
  const base = promName(u.metric.name);
  if (u.metric.kind === 'counter') return base.endsWith('_total') ? base : `${base}_total`;
  // With useSecondsForDurations, durations come in seconds with the unit "s".
  if (u.metric.kind === 'histogram' && /^(s|seconds?)$/.test(u.metric.unit ?? '') && !base.endsWith('_seconds'))
    return `${base}_seconds`;
  return base;
}

export class TemporalMetrics {
  private families = new Map<string, Family>();

  constructor(private readonly registry: Registry) {}

  /** Folds buffered updates in: counters and up-down counters add, gauges set, histograms observe. */
  apply(updates: Iterable<BufferedMetricUpdate>): void {
    for (const u of updates) {
      const name = familyName(u);
      let family = this.families.get(name);
      if (!family) {
        const type = u.metric.kind === 'histogram' ? 'histogram' : u.metric.kind === 'counter' ? 'counter' : 'gauge';
        family = {
          name,
          help: u.metric.description || `Temporal SDK metric ${u.metric.name}`,
          type,
          series: new Map(),
        };
        this.families.set(name, family);
        const f = family;
        // Rendered by the registry like its own metrics, in the same scrape.
        this.registry.registerMetric({
          name,
          help: f.help,
          type: f.type,
          get: async () => TemporalMetrics.render(f),
          reset: () => f.series.clear(),
        } as unknown as Metric);
      }
      const labels = promLabels(u.attributes);
      const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
      let s = family.series.get(key);
      if (family.type === 'histogram') {
        s ??= { labels, value: { counts: TEMPORAL_BUCKETS.map(() => 0), sum: 0, count: 0 } };
        const h = s.value as HistogramValue;
        TEMPORAL_BUCKETS.forEach((le, i) => {
          if (u.value <= le) h.counts[i]++;
        });
        h.sum += u.value;
        h.count++;
      } else {
        s ??= { labels, value: 0 };
        s.value = u.metric.kind === 'gauge' ? u.value : (s.value as number) + u.value;
      }
      family.series.set(key, s);
    }
  }

  /** The family as prom-client renders it: `values` with labels, histograms as _bucket/_sum/_count. */
  static render(f: Family) {
    const values: MetricValueWithName<string>[] = [];
    for (const { labels, value } of f.series.values()) {
      if (typeof value === 'number') {
        values.push({ labels, value });
        continue;
      }
      TEMPORAL_BUCKETS.forEach((le, i) =>
        values.push({ metricName: `${f.name}_bucket`, labels: { ...labels, le }, value: value.counts[i] }),
      );
      values.push({ metricName: `${f.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: value.count });
      values.push({ metricName: `${f.name}_sum`, labels, value: value.sum });
      values.push({ metricName: `${f.name}_count`, labels, value: value.count });
    }
    return { name: f.name, help: f.help, type: f.type, aggregator: 'sum' as const, values };
  }
}
