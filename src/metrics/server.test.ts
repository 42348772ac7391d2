import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.js';
import { MetricsPortInUse, startMetricsServer } from './server.js';
import { batchesAccepted } from './registry.js';

const log = createLogger('silent');

describe("a worker's metrics server", () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('serves the registry as Prometheus text at GET /metrics, and nothing else', async () => {
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, log);
    stops.push(server.stop);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    batchesAccepted.inc();
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    expect(text).toMatch(/^profiling_batches_accepted_total [1-9]/m);
    expect(text).toContain('profiling_process_cpu_seconds_total');
    expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
  });

  it('refuses a port already taken with an error that says what to do', async () => {
    const first = await startMetricsServer({ host: '127.0.0.1', port: 0 }, log);
    stops.push(first.stop);
    const port = Number(new URL(first.url).port);
    const second = startMetricsServer({ host: '127.0.0.1', port }, log);
    await expect(second).rejects.toBeInstanceOf(MetricsPortInUse);
    await expect(second).rejects.toThrow(`METRICS_PORT: 127.0.0.1:${port} is in use`);
  });
});
