import { call, newTenant, waitFor, waitForBatch } from '../test/support/api.js';
import { startReceiver } from '../test/support/receiver.js';
import { cpuSeconds } from './procs.js';

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

/**
 * Scenario 3b: the extra cost of a retried delivery. The same users are submitted twice to fresh
 * tenants whose segment every user enters: once with a receiver answering 200, once with one that
 * answers 503 to each event's first attempt. The difference in CPU (api, worker, PostgreSQL,
 * Temporal) per delivery is the cost of one retry; the time from the first attempt to the accepted
 * retry shows the schedule's delay plus the service's own overhead.
 */
export async function retryCost(args: { texts: string[]; users: number; pids: { api: number; worker: number } }) {
  const run = async (label: string, failFirst: boolean) => {
    const seen = new Set<string>();
    const rx = await startReceiver((_n, r) => {
      const id = String(r.headers['x-event-id']);
      if (!failFirst || seen.has(id)) return 200;
      seen.add(id);
      return 503;
    });
    const t = await newTenant(`retries-${label}`);
    const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
    await call('POST', `${base}/webhooks`, { key: t.key, body: { url: rx.url } });
    await call('POST', `${base}/segments`, {
      key: t.key,
      body: { id: 'all', name: 'All', rule: { field: 'window_size', op: '>=', value: 1 } },
    });
    await call('POST', `${base}/segments/all/deploy`, { key: t.key });
    const before = cpuSeconds(args.pids);
    const users = Array.from({ length: args.users }, (_, i) => ({
      user_id: `${label}-${i}`,
      text: args.texts[i % args.texts.length],
    }));
    const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
    await waitForBatch(res.body.source_id, 600_000);
    const ok = () =>
      rx.received.filter(
        (x, i) => !failFirst || rx.received.findIndex((y) => y.headers['x-event-id'] === x.headers['x-event-id']) !== i,
      );
    await waitFor(`${label}: every delivery accepted`, async () => ok().length >= args.users, 600_000, 250);
    const after = cpuSeconds(args.pids);
    await rx.close();
    const cpuMs = Object.keys(after).reduce((s, k) => s + (after[k] - (before[k] ?? 0)), 0) * 1000;
    const retryLatency = failFirst
      ? ok().map((x) => x.at - rx.received.find((y) => y.headers['x-event-id'] === x.headers['x-event-id'])!.at)
      : [];
    return { cpuMsPerDelivery: cpuMs / args.users, retryLatency };
  };
  const okRun = await run('ok', false);
  const failing = await run('fail-first', true);
  return {
    users: args.users,
    ok: { cpuMsPerDelivery: okRun.cpuMsPerDelivery },
    failingFirst: { cpuMsPerDelivery: failing.cpuMsPerDelivery },
    extraCpuMsPerRetry: failing.cpuMsPerDelivery - okRun.cpuMsPerDelivery,
    retryLatencyMs: { p50: pct(failing.retryLatency, 50), p99: pct(failing.retryLatency, 99) },
  };
}
