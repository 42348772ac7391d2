import { describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import {
  callBounded,
  makeUsers,
  pids,
  restartableReceiver,
  rssMiB,
  sql,
  submit,
  undeliveredEvents,
  waitForBatches,
  wire,
} from './support.js';

/** SOAK_MINUTES (default 10) at SOAK_RATE users/s (default 8, about half what the pipeline does on 2 cores). */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 8);
const BATCH_EVERY_MS = 5_000;
const BATCH = Math.round((RATE * BATCH_EVERY_MS) / 1000);
const READ_EVERY_MS = 300;
const QUEUE_EVERY_MS = 30_000;
const RSS_EVERY_MS = 5_000;
/** The queue never holds more than a minute of submitted work. */
const MAX_BACKLOG_USERS = RATE * 60;
/** Memory of the last minute may exceed the first steady minute by at most this much. */
const RSS_GROWTH = 0.25;
const SEGMENTS = [
  { id: 'pro', rule: { field: 'attributes.plan', op: '==', value: 'pro' } },
  { id: 'unhappy', rule: { field: 'avg_sentiment', op: '<', value: 0 } },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)] ?? 0;
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

interface QueueSample {
  at: number;
  processed: number;
  /** Age of the oldest batch not finished yet, in seconds. */
  oldestS: number;
  backlogUsers: number;
  unstarted: number;
  undispatched: number;
  undelivered: number;
}

describe('soak', () => {
  it(
    `${MINUTES} min at ${RATE} users/s with concurrent reads: no errors, no growing queue, flat memory`,
    { timeout: (MINUTES + 6) * 60_000 },
    async () => {
      const rx = await restartableReceiver();
      const t = await newTenant('soak');
      const { webhookId } = await wire(t, rx.url, SEGMENTS);
      const { api, worker } = await pids();
      const durationMs = MINUTES * 60_000;
      const start = Date.now();
      const elapsed = () => Date.now() - start;

      const writes: { status: number | string; ms: number; sourceId?: number }[] = [];
      const reads: { status: number | string; ms: number; at: number; user?: string }[] = [];
      let notYet = 0;
      const queue: QueueSample[] = [];
      const rss: { at: number; api: number; worker: number }[] = [];
      let known = 0;

      // Writer: one batch every 5 s on a fixed schedule; a quarter of each batch are returning users.
      const writer = (async () => {
        for (let k = 0; elapsed() < durationMs; k++) {
          const fresh = makeUsers('soak', BATCH - Math.floor(BATCH / 4), known);
          const returning =
            known > 0 ? makeUsers('soak', Math.floor(BATCH / 4), (k * 7919) % Math.max(1, known - BATCH)) : [];
          known += fresh.length;
          const users = [...fresh, ...returning.filter((u) => !fresh.some((f) => f.user_id === u.user_id))].map(
            (u) => ({ ...u, text: `${u.text} [${k}]` }),
          );
          const at = Date.now();
          const res = await submit(t, users).catch((err: Error) => ({ status: err.message, body: {} as any }));
          writes.push({ status: res.status, ms: Date.now() - at, sourceId: res.body?.source_id });
          await sleep(start + (k + 1) * BATCH_EVERY_MS - Date.now());
        }
      })();
      // Readers: the profile list, one profile and its timeline, a few times a second.
      const reader = (async () => {
        for (let k = 0; elapsed() < durationMs; k++) {
          const someone = `soak-${(k * 31) % Math.max(1, known - BATCH * 4)}`;
          const path = [
            `/api/v1/profiles?project_id=${t.projectId}&limit=20&offset=${k % 50}`,
            `/api/v1/profiles?project_id=${t.projectId}&churn_risk_gte=0.3&min_messages=1`,
            `/api/v1/profiles/${someone}?project_id=${t.projectId}`,
            `/api/v1/profiles/${someone}/timeline?project_id=${t.projectId}`,
          ][k % 4];
          const at = Date.now();
          const res = await callBounded('GET', path, { key: t.key }, 30_000).catch((err: Error) => ({
            status: err.message,
          }));
          // A 404 for one user is correct only if that user had no profile yet when the read
          // started: checked against the database at the end, not assumed.
          const user = path.startsWith('/api/v1/profiles?') ? undefined : someone;
          if (res.status === 404 && user) notYet++;
          reads.push({ status: res.status, ms: Date.now() - at, at, user });
          await sleep(READ_EVERY_MS);
        }
      })();
      const sampleQueue = async () => {
        const [s] = await sql(
          `SELECT coalesce(sum(user_count) FILTER (WHERE completed_at IS NULL), 0)::int AS backlog,
                count(*) FILTER (WHERE workflow_started_at IS NULL)::int AS unstarted,
                coalesce(extract(epoch FROM now() - min(created_at) FILTER (WHERE completed_at IS NULL)), 0)::float AS oldest,
                (SELECT coalesce(sum(message_count), 0)::int FROM users WHERE project_id = $1) AS processed
           FROM sources WHERE project_id = $1`,
          [t.projectId],
        );
        const [o] = await sql('SELECT count(*)::int AS n FROM outbox WHERE webhook_id = $1 AND dispatched_at IS NULL', [
          webhookId,
        ]);
        queue.push({
          at: elapsed(),
          processed: s.processed,
          oldestS: s.oldest,
          backlogUsers: s.backlog,
          unstarted: s.unstarted,
          undispatched: o.n,
          undelivered: await undeliveredEvents(t.projectId),
        });
      };
      const sampler = (async () => {
        let nextQueue = 0;
        while (elapsed() < durationMs) {
          rss.push({ at: elapsed(), api: rssMiB(api), worker: rssMiB(worker) });
          if (elapsed() >= nextQueue) {
            nextQueue += QUEUE_EVERY_MS;
            await sampleQueue();
          }
          await sleep(RSS_EVERY_MS);
        }
      })();
      await Promise.all([writer, reader, sampler]);
      await sampleQueue(); // the state the moment the load stops

      // Afterwards everything accepted drains: batches complete, events delivered.
      const drainStart = Date.now();
      const sources = writes.filter((w) => w.status === 202).map((w) => w.sourceId!);
      await waitForBatches(sources, 300_000);
      await expect.poll(() => undeliveredEvents(t.projectId), { timeout: 300_000, interval: 1_000 }).toBe(0);
      const drainS = (Date.now() - drainStart) / 1000;
      const [totals] = await sql(
        `SELECT (SELECT coalesce(sum(processed), 0)::int FROM sources WHERE project_id = $1) AS processed,
              (SELECT coalesce(sum(failed), 0)::int FROM sources WHERE project_id = $1) AS failed,
              (SELECT coalesce(sum(user_count), 0)::int FROM sources WHERE project_id = $1) AS submitted,
              (SELECT count(*)::int FROM events WHERE project_id = $1) AS events`,
        [t.projectId],
      );

      const minute = Math.min(60_000, durationMs / 2);
      const warm = durationMs >= 180_000 ? 60_000 : 0;
      const firstWindow = rss.filter((r) => r.at >= warm && r.at < warm + minute);
      const lastWindow = rss.filter((r) => r.at >= durationMs - minute);
      const memory = (['api', 'worker'] as const).map((p) => ({
        process: p,
        first: mean(firstWindow.map((r) => r[p])),
        last: mean(lastWindow.map((r) => r[p])),
        peak: Math.max(...rss.map((r) => r[p])),
      }));
      const soakProcessed = queue.at(-1)?.processed ?? 0;
      const f = (x: number) => x.toFixed(0);
      console.log(
        [
          `[soak] ${MINUTES} min, target ${RATE} users/s (${BATCH} users every ${BATCH_EVERY_MS / 1000} s): ` +
            `${writes.length} batches, ${totals.submitted} messages submitted, ${soakProcessed} processed during the soak (${(soakProcessed / (durationMs / 1000)).toFixed(1)}/s), ${totals.failed} failed, ${totals.events} events`,
          `[soak] writes: ${writes.filter((w) => w.status === 202).length}/${writes.length} x202, p50 ${f(
            pct(
              writes.map((w) => w.ms),
              50,
            ),
          )} ms, p95 ${f(
            pct(
              writes.map((w) => w.ms),
              95,
            ),
          )} ms, max ${f(Math.max(...writes.map((w) => w.ms)))} ms`,
          `[soak] reads: ${reads.length} (${(reads.length / (durationMs / 1000)).toFixed(1)}/s): ${reads.filter((r) => r.status === 200).length} x200, ${notYet} x404 for a user without a profile yet (checked below against its creation time), p50 ${f(
            pct(
              reads.map((r) => r.ms),
              50,
            ),
          )} ms, p95 ${f(
            pct(
              reads.map((r) => r.ms),
              95,
            ),
          )} ms, max ${f(Math.max(...reads.map((r) => r.ms)))} ms`,
          `[soak] every 30 s (users processed / backlog users / oldest unfinished batch s / unstarted batches / undispatched outbox / undelivered events): ` +
            queue
              .map(
                (q) =>
                  `${q.processed}/${q.backlogUsers}/${f(q.oldestS)}/${q.unstarted}/${q.undispatched}/${q.undelivered}`,
              )
              .join('  '),
          `[soak] drained in ${drainS.toFixed(0)} s after the load stopped; every event delivered`,
          ...memory.map(
            (m) =>
              `[soak] RSS ${m.process}: first steady minute ${f(m.first)} MiB, last minute ${f(m.last)} MiB (${(((m.last - m.first) / m.first) * 100).toFixed(1)}%), peak ${f(m.peak)} MiB`,
          ),
          `[soak] RSS per minute (api/worker MiB): ` +
            Array.from({ length: Math.ceil(durationMs / 60_000) }, (_, i) =>
              rss.filter((r) => r.at >= i * 60_000 && r.at < (i + 1) * 60_000),
            )
              .map((w) => `${f(mean(w.map((r) => r.api)))}/${f(mean(w.map((r) => r.worker)))}`)
              .join(' '),
        ].join('\n'),
      );

      expect(writes.filter((w) => w.status !== 202)).toEqual([]);
      // Every read is 200, except a 404 for a user whose profile did not exist when the read began.
      // created_at is the fold transaction's start, which can precede its commit: 5 s of grace.
      const created = new Map<string, number>(
        (
          await sql('SELECT user_id, extract(epoch FROM created_at) * 1000 AS at FROM users WHERE project_id = $1', [
            t.projectId,
          ])
        ).map((u: { user_id: string; at: number }) => [u.user_id, Number(u.at)]),
      );
      const wrong404 = (r: (typeof reads)[number]) => !r.user || (created.get(r.user) ?? Infinity) + 5_000 < r.at;
      expect(reads.filter((r) => r.status !== 200 && (r.status !== 404 || wrong404(r)))).toEqual([]);
      expect(totals.failed).toBe(0);
      expect(totals.processed).toBe(totals.submitted);
      // Not growing: no sample holds more than a minute of work, nor undelivered events for long.
      expect(queue.filter((q) => q.backlogUsers > MAX_BACKLOG_USERS || q.unstarted > 1)).toEqual([]);
      const lastQueue = queue.slice(-2);
      expect(lastQueue.filter((q) => q.undelivered > MAX_BACKLOG_USERS)).toEqual([]);
      for (const m of memory) expect(m.last, `${m.process} RSS grew`).toBeLessThanOrEqual(m.first * (1 + RSS_GROWTH));
      await rx.stop();
    },
  );
});
