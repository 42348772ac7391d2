import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FULL_ACCESS } from '../../src/auth/api-keys.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { identifyUsers } from '../../src/ingest/identify-users.js';
import { completeBatch, unstartedBatches } from '../../src/ingest/batch-lifecycle.js';
import { admitWaitingBatches, stampBatchProgress } from '../../src/ingest/batch-lifecycle.js';
import { testDatabaseUrl } from '../support/database.js';
import { createUserHasher } from '../../src/user-hash.js';

describe('batch workflows are admitted per tenant (issue 14)', () => {
  let db: Db;
  const projects: number[] = [];
  const started: number[] = [];
  const batches = {
    startBatch: async (a: { sourceId: number }) => {
      started.push(a.sourceId);
      return `batch-test-${a.sourceId}`;
    },
  };
  const log = { warn: () => undefined, info: () => undefined, debug: () => undefined } as never;
  const quotas = { batchesInFlight: 50, batchesRunning: 2 };

  async function tenant(name: string): Promise<{ tenantId: number; projectId: number }> {
    const [t] = await db('tenants').insert({ name }).returning('id');
    const [p] = await db('projects').insert({ tenant_id: t.id, name }).returning('id');
    projects.push(p.id);
    return { tenantId: Number(t.id), projectId: Number(p.id) };
  }
  const submit = async (t: { tenantId: number; projectId: number }, n: number) =>
    (
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          identifyUsers(
            { db, batches, log, quotas, userHash: createUserHasher('ab'.repeat(32)) },
            { tenantId: t.tenantId, ...FULL_ACCESS },
            {
              projectId: t.projectId,
              users: [{ userId: `u${i}`, text: 'The export keeps failing since the update.' }],
            },
          ),
        ),
      )
    ).map((r) => r.source_id);
  /**
   * Waits until the api's background start of every admitted batch among `ids` has run and
   * recorded its workflow (identify-users.ts starts them after answering).
   */
  const startsRecorded = (ids: number[]) =>
    vi.waitFor(
      async () => {
        const rows = await db('sources').whereIn('id', ids).whereNotNull('admitted_at').select('workflow_started_at');
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((r) => r.workflow_started_at === null)).toEqual([]);
      },
      { timeout: 10_000, interval: 20 },
    );
  const admittedOf = async (ids: number[]) =>
    (await db('sources').whereIn('id', ids).whereNotNull('admitted_at').orderBy('id').select('id')).map((r) =>
      Number(r.id),
    );

  beforeAll(() => {
    db = createDb(testDatabaseUrl(), 8);
  });
  afterAll(async () => {
    await db('projects').whereIn('id', projects).delete();
    await db.destroy();
  });

  it("runs two of a burst of one tenant's batches at once, another tenant's at once, the next as one completes", async () => {
    const burst = await tenant('batch-burst');
    const other = await tenant('batch-other');
    // Five submitted at the same moment: they serialise on the tenant's lock, so only two take a place.
    const ids = (await submit(burst, 5)).sort((a, b) => a - b);
    const [otherId] = await submit(other, 1);
    await startsRecorded([...ids, otherId]);
    const running = await admittedOf(ids);
    expect(running).toHaveLength(2);
    expect(started).toEqual(expect.arrayContaining([...running, otherId]));
    expect(started.filter((id) => ids.includes(id))).toHaveLength(2);
    // Every batch is stored and answered; the waiting ones are not the relay's to start yet.
    expect(await db('sources').whereIn('id', ids).count({ n: '*' })).toEqual([{ n: 5 }]);
    expect((await unstartedBatches(db, 1_000)).map((s) => s.id)).not.toEqual(
      expect.arrayContaining(ids.filter((id) => !running.includes(id))),
    );
    expect((await admitWaitingBatches(db, 2, 100)).filter((s) => ids.includes(s.id))).toEqual([]);

    // One completes: the oldest waiting one is admitted, and no other.
    await completeBatch(db, { sourceId: running[0], processed: 1, failed: 0 });
    const next = (await admitWaitingBatches(db, 2, 100)).filter((s) => ids.includes(s.id)).map((s) => s.id);
    const waiting = ids.filter((id) => !running.includes(id));
    expect(next).toEqual([waiting[0]]);
    expect((await admitWaitingBatches(db, 2, 100)).filter((s) => ids.includes(s.id))).toEqual([]);
  });

  it('stops counting a batch admitted 5 minutes ago and never completed (a terminated workflow)', async () => {
    const t = await tenant('batch-stale');
    const ids = (await submit(t, 3)).sort((a, b) => a - b);
    await startsRecorded(ids);
    const running = await admittedOf(ids);
    expect(running).toHaveLength(2);
    await db('sources')
      .whereIn('id', running)
      .update({ admitted_at: db.raw(`now() - interval '6 minutes'`) });
    const admitted = (await admitWaitingBatches(db, 2, 100)).filter((s) => ids.includes(s.id)).map((s) => s.id);
    expect(admitted).toEqual(ids.filter((id) => !running.includes(id)));
  });

  it('keeps the place of a batch whose chunks are still being folded, however long it runs', async () => {
    const t = await tenant('batch-long');
    const ids = (await submit(t, 4)).sort((a, b) => a - b);
    await startsRecorded(ids);
    const running = await admittedOf(ids);
    const waiting = ids.filter((id) => !running.includes(id));
    expect(running).toHaveLength(2);
    await db('sources')
      .whereIn('id', running)
      .update({ admitted_at: db.raw(`now() - interval '6 minutes'`) });
    // A chunk of the first one is folded now; the second has made no progress for 6 minutes.
    await stampBatchProgress(db, running[0]);
    // A waiting batch is not admitted by a stamp.
    await stampBatchProgress(db, waiting[1]);
    expect(await admittedOf(waiting)).toEqual([]);
    const admitted = (await admitWaitingBatches(db, 2, 100)).filter((s) => ids.includes(s.id)).map((s) => s.id);
    expect(admitted).toEqual([waiting[0]]);
  });
});
