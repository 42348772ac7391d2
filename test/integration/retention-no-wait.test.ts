import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { sweepRetention } from '../../src/privacy/retention.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * "The sweep never waits for ingest" (docs/privacy.md, Retention), for the batch items as well as
 * the messages: ingest holds batch item rows too. A fold holds its item FOR SHARE to its commit
 * (process-chunk.ts; a chunk retried after a crash re-folds items whose message is already
 * stored), and an erasure blanks its user's items (erase-user.ts). While another transaction holds
 * such a row the sweep must finish without waiting for it, and take the row at a later run.
 */
describe('retention sweep and batch item rows held by ingest', () => {
  let db: Db;
  const projects: number[] = [];
  const log = { info: () => undefined, warn: () => undefined } as never;

  beforeAll(() => {
    db = createDb(testDatabaseUrl(), 4);
  });
  afterAll(async () => {
    await db('projects').whereIn('id', projects).delete();
    await db.destroy();
  });

  /**
   * A project keeping 30 days with four 40-day-old batch items: 0 and 1 analysed (a message
   * each), 2 and 3 failed analysis (no message). Each test seeds its own: a sweep takes every project.
   */
  async function seed(name: string): Promise<number> {
    const [t] = await db('tenants').insert({ name }).returning('id');
    const [p] = await db('projects').insert({ tenant_id: t.id, name, message_retention_days: 30 }).returning('id');
    projects.push(Number(p.id));
    const [u] = await db('users').insert({ project_id: p.id, user_id: 'u', source_label: 'api' }).returning('id');
    const [s] = await db('sources')
      .insert({ project_id: p.id, label: 'api', user_count: 4, completed_at: db.fn.now() })
      .returning('id');
    const old = db.raw(`now() - interval '40 days'`);
    await db('source_items').insert([
      { source_id: s.id, idx: 0, user_id: 'u', text: 'analysed 0', written_at: old },
      { source_id: s.id, idx: 1, user_id: 'u', text: 'analysed 1', written_at: old },
      { source_id: s.id, idx: 2, user_id: 'u', text: 'failed 2', written_at: old, error: 'embedder' },
      { source_id: s.id, idx: 3, user_id: 'u', text: 'failed 3', written_at: old, error: 'embedder' },
    ]);
    await db('messages').insert(
      [0, 1].map((idx) => ({
        user_pk: u.id,
        source_id: s.id,
        item_idx: idx,
        written_at: old,
        source_label: 'api',
        text: `analysed ${idx}`,
        sentiment: -0.5,
        topics: [],
        intentions: [],
        embedding: [0.1, 0.2],
      })),
    );
    return Number(s.id);
  }

  /** Another session holding one batch item row (`FOR SHARE` as a fold, `FOR UPDATE` as an erasure). */
  async function hold(sourceId: number, idx: number, mode: 'FOR SHARE' | 'FOR UPDATE') {
    const holder = new pg.Client({ connectionString: testDatabaseUrl() });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT 1 FROM source_items WHERE source_id = $1 AND idx = $2 ${mode}`, [sourceId, idx]);
    const pid: number = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const observer = new pg.Client({ connectionString: testDatabaseUrl() });
    await observer.connect();
    return {
      /** Whether a session waits on the held row now (pg_blocking_pids). */
      async waitedOn(): Promise<boolean> {
        const { rows } = await observer.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [pid],
        );
        return rows[0].n > 0;
      },
      async release() {
        await holder.query('ROLLBACK');
        await holder.end();
        await observer.end();
      },
    };
  }

  /** Runs a sweep while the row is held: 'finished', or 'waited' as soon as it waits on the row. */
  async function sweepWhileHeld(held: Awaited<ReturnType<typeof hold>>): Promise<'finished' | 'waited'> {
    let settled = false;
    const sweep = sweepRetention(db, log).finally(() => (settled = true));
    try {
      for (;;) {
        if (settled) return (await sweep, 'finished');
        if (await held.waitedOn()) return 'waited';
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      await held.release();
      await sweep;
    }
  }

  const itemTexts = async (sourceId: number) =>
    db('source_items').where({ source_id: sourceId }).orderBy('idx').pluck('text') as Promise<(string | null)[]>;

  it('does not wait for a swept message’s batch item held by a fold, and takes it at a later run', async () => {
    const sourceId = await seed('retention-no-wait-fold');
    expect(await sweepWhileHeld(await hold(sourceId, 0, 'FOR SHARE'))).toBe('finished');
    await sweepRetention(db, log);
    expect(await itemTexts(sourceId)).toEqual([null, null, null, null]);
  });

  it('does not wait for a failed item held by an erasure, and takes it at a later run', async () => {
    const sourceId = await seed('retention-no-wait-erasure');
    expect(await sweepWhileHeld(await hold(sourceId, 3, 'FOR UPDATE'))).toBe('finished');
    await sweepRetention(db, log);
    expect(await itemTexts(sourceId)).toEqual([null, null, null, null]);
  });
});
