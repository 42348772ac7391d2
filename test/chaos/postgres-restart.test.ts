import { afterAll, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import {
  callBounded,
  chaos,
  expectEachEventDeliveredOnce,
  makeUsers,
  messageCount,
  pids,
  restartableReceiver,
  sql,
  submit,
  undeliveredEvents,
  waitForBatches,
  wire,
} from './support.js';

const BASE_USERS = 300;
const SMALL = 10;
const OUTAGE_MS = 10_000;
/** No request may take longer than this, outage or not (the service's own DB timeouts are 5 s). */
const BOUND_MS = 20_000;
const PRO = { id: 'pro', rule: { field: 'attributes.plan', op: '==', value: 'pro' } };

interface Answer {
  kind: 'write' | 'read';
  at: number;
  ms: number;
  status: number | 'hang';
  code?: string;
  retryAfter?: string | null;
  sourceId?: number;
  users?: number;
}

describe('PostgreSQL restarted during ingest', () => {
  afterAll(() => chaos('postgres/start'));

  it(
    'answers 503 during the outage, recovers by itself, and processes every batch answered 202',
    { timeout: 600_000 },
    async () => {
      // PostgreSQL is stopped from inside the receiver, while a delivery is in flight: the attempt has
      // been sent but not yet recorded, the moment a careless retry would send it twice.
      let arm = false;
      let inFlight: string | undefined;
      let markStopped: () => void = () => undefined;
      const stoppedInFlight = new Promise<void>((resolve) => (markStopped = resolve));
      const rx = await restartableReceiver(async (r) => {
        if (arm && !inFlight) {
          inFlight = r.eventId;
          await chaos('postgres/stop');
          markStopped();
        }
        return 200;
      });
      const t = await newTenant('postgres-restart');
      await wire(t, rx.url, [PRO]);
      const base = await submit(t, makeUsers('pg', BASE_USERS));
      expect(base.status).toBe(202);
      await expect
        .poll(() => messageCount([base.body.source_id]), { timeout: 300_000, interval: 100 })
        .toBeGreaterThanOrEqual(50);

      // Steady traffic, one writer and one reader, all through the outage.
      const answers: Answer[] = [];
      let running = true;
      const timed = async (
        kind: Answer['kind'],
        fn: () => Promise<{ status: number; body: any; headers: Headers }>,
        users?: number,
      ) => {
        const at = Date.now();
        try {
          const r = await fn();
          answers.push({
            kind,
            at,
            ms: Date.now() - at,
            status: r.status,
            code: r.body?.error?.code,
            retryAfter: r.headers.get('retry-after'),
            sourceId: r.body?.source_id,
            users,
          });
        } catch {
          answers.push({ kind, at, ms: Date.now() - at, status: 'hang' });
        }
        await new Promise((r) => setTimeout(r, 300));
      };
      let n = 0;
      const writer = (async () => {
        while (running) {
          const users = makeUsers(`pg-w${n++}`, SMALL);
          await timed('write', () => submit(t, users, BOUND_MS), SMALL);
        }
      })();
      const reader = (async () => {
        while (running)
          await timed('read', () =>
            callBounded('GET', `/api/v1/profiles?project_id=${t.projectId}&limit=5`, { key: t.key }, BOUND_MS),
          );
      })();

      await new Promise((r) => setTimeout(r, 2_000));
      const before = await pids();
      arm = true;
      await stoppedInFlight;
      const down = Date.now();
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
      await chaos('postgres/start');
      const up = Date.now();
      // Recovered by itself: five writes in a row accepted after the restart.
      await expect
        .poll(
          () => {
            const writes = answers.filter((a) => a.kind === 'write' && a.at > up);
            return writes.length >= 5 && writes.slice(-5).every((a) => a.status === 202);
          },
          { timeout: 120_000, interval: 250 },
        )
        .toBe(true);
      running = false;
      await Promise.all([writer, reader]);
      expect(await pids()).toEqual(before); // no process was restarted

      const during = answers.filter((a) => a.at >= down && a.at < up);
      const unexpected = answers.filter((a) => a.status !== 503 && a.status !== (a.kind === 'write' ? 202 : 200));
      expect(unexpected).toEqual([]);
      expect(during.filter((a) => a.kind === 'write' && a.status === 503).length).toBeGreaterThan(0);
      expect(during.filter((a) => a.kind === 'read' && a.status === 503).length).toBeGreaterThan(0);
      for (const a of answers.filter((x) => x.status === 503))
        expect(a).toMatchObject({ code: 'unavailable', retryAfter: expect.stringMatching(/^\d+$/) });

      // Every 202 is processed; a 503 stored nothing (the project has exactly the accepted batches).
      const accepted = answers.filter((a) => a.kind === 'write' && a.status === 202);
      const sources = await sql<{ id: number }>('SELECT id::int AS id FROM sources WHERE project_id = $1', [
        t.projectId,
      ]);
      expect(sources.map((s) => s.id).sort((a, b) => a - b)).toEqual(
        [base.body.source_id, ...accepted.map((a) => a.sourceId)].sort((a, b) => a! - b!),
      );
      const done = await waitForBatches(
        sources.map((s) => s.id),
        400_000,
      );
      expect(done.get(base.body.source_id)).toEqual({ processed: BASE_USERS, failed: 0 });
      for (const a of accepted) expect(done.get(a.sourceId!)).toEqual({ processed: SMALL, failed: 0 });
      await expect.poll(() => undeliveredEvents(t.projectId), { timeout: 180_000, interval: 500 }).toBe(0);
      const events = await expectEachEventDeliveredOnce(t.projectId, rx.successes());

      const count = (kind: string, status: number, list = answers) =>
        list.filter((a) => a.kind === kind && a.status === status).length;
      const slowest = Math.max(...answers.map((a) => a.ms));
      console.log(
        `[postgres-restart] outage ${((up - down) / 1000).toFixed(1)} s: writes 202 x${count('write', 202)}, 503 x${count('write', 503)} ` +
          `(during: ${count('write', 503, during)}); reads 200 x${count('read', 200)}, 503 x${count('read', 503)}; slowest answer ${slowest} ms; ` +
          `${accepted.length + 1} accepted batches all processed; ${events} events delivered once ` +
          `(event ${inFlight} was in flight when PostgreSQL stopped); same pids`,
      );
      await rx.stop();
    },
  );

  it(
    'loses nothing when every database connection is killed again and again mid-batch',
    { timeout: 600_000 },
    async () => {
      // A failover or a proxy dropping connections: PostgreSQL stays up, the sessions die mid-transaction.
      const t = await newTenant('postgres-kill-sessions');
      await wire(t, undefined, [PRO]);
      const res = await submit(t, makeUsers('pgk', BASE_USERS));
      expect(res.status).toBe(202);
      await expect
        .poll(() => messageCount([res.body.source_id]), { timeout: 300_000, interval: 100 })
        .toBeGreaterThanOrEqual(30);
      const statuses: (number | 'hang')[] = [];
      let kills = 0;
      for (let round = 0; round < 20 && (await messageCount([res.body.source_id])) < BASE_USERS; round++) {
        const writes = Array.from({ length: 3 }, (_, k) =>
          submit(t, makeUsers(`pgk-w${round}-${k}`, SMALL), BOUND_MS).then(
            (r) => r.status,
            () => 'hang' as const,
          ),
        );
        await new Promise((r) => setTimeout(r, 50 + 30 * round));
        const [killed] = await sql<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        kills += killed.n;
        statuses.push(...(await Promise.all(writes)));
      }
      // 429: the tenant's batches in flight reached TENANT_BATCHES_IN_FLIGHT (50) while the kills slow
      // the worker down; like a 503 it is a clear answer that stores nothing. Never a 500 or a hang.
      expect(statuses.filter((s) => s !== 202 && s !== 503 && s !== 429)).toEqual([]);
      expect(kills).toBeGreaterThan(0);
      const done = await waitForBatches([res.body.source_id], 400_000);
      expect(done.get(res.body.source_id)).toEqual({ processed: BASE_USERS, failed: 0 });
      const [failedItems] = await sql<{ n: number }>(
        'SELECT count(*)::int AS n FROM source_items WHERE source_id = $1 AND error IS NOT NULL',
        [res.body.source_id],
      );
      expect(failedItems.n).toBe(0);
      console.log(
        `[postgres-restart] ${kills} sessions killed mid-batch: ${BASE_USERS}/${BASE_USERS} processed, 0 failed; writes ${statuses.filter((s) => s === 202).length} x202, ${statuses.filter((s) => s === 503).length} x503, ${statuses.filter((s) => s === 429).length} x429`,
      );
    },
  );
});
