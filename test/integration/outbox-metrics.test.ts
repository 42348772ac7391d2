import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createDb, type Db } from '../../src/db/knex.js';
import { createLogger } from '../../src/observability/logger.js';
import { registry } from '../../src/metrics/registry.js';
import { registerOutboxGauges } from '../../src/metrics/outbox.js';
import { testDatabaseUrl } from '../support/database.js';
import { insertEventFixture } from '../support/event-fixture.js';

/** The outbox gauges of a scrape, read from the registry as Prometheus would. */
async function gauges() {
  const text = await registry.metrics();
  const value = (name: string) => text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1];
  return { pending: value('profiling_outbox_pending'), oldest: value('profiling_outbox_oldest_pending_seconds') };
}

describe('outbox gauges, read on scrape', () => {
  let db: Db;
  const warnings: unknown[] = [];
  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 4);
    const log = createLogger('silent');
    vi.spyOn(log, 'warn').mockImplementation((msg, fields) => void warnings.push({ msg, fields }));
    registerOutboxGauges(db, log);
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('say how many rows wait and how old the oldest is, and NaN (with a warning) when PostgreSQL does not answer in time', async () => {
    // The figures are the table's, whatever other tests left in it: compared with the same query's answer.
    const expected = async () => {
      const { rows } = await db.raw(
        `SELECT count(*)::int AS n, coalesce(max(extract(epoch FROM now() - created_at)), 0) AS age
           FROM outbox WHERE dispatched_at IS NULL`,
      );
      return { n: rows[0].n as number, age: Number(rows[0].age) };
    };
    const before = await expected();
    const read = await gauges();
    expect(Number(read.pending)).toBe(before.n);
    if (before.n === 0) expect(read.oldest).toBe('0');
    else expect(Number(read.oldest)).toBeGreaterThanOrEqual(before.age - 1);

    // One more row, waiting for two minutes: both gauges move by it.
    const { pipelineId, eventId } = await insertEventFixture(db, 'outbox-metrics');
    const [webhook] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url: 'https://example.com/hook', events: ['user_added'] })
      .returning('id');
    await db.raw(
      `INSERT INTO outbox (event_id, webhook_id, created_at) VALUES (?, ?, now() - interval '120 seconds')`,
      [eventId, webhook.id],
    );
    try {
      const moved = await gauges();
      expect(Number(moved.pending)).toBe(before.n + 1);
      expect(Number(moved.oldest)).toBeGreaterThanOrEqual(Math.max(119, before.age));
    } finally {
      await db('outbox').where({ event_id: eventId }).delete();
    }

    // A lock that blocks the read: the scrape still answers (the query is cancelled at its timeout), with NaN.
    const blocker = new pg.Client({ connectionString: testDatabaseUrl() });
    await blocker.connect();
    try {
      await blocker.query('BEGIN; LOCK TABLE outbox IN ACCESS EXCLUSIVE MODE');
      // prom-client writes NaN as "Nan" (Prometheus reads either).
      expect(await gauges()).toEqual({
        pending: expect.stringMatching(/^nan$/i),
        oldest: expect.stringMatching(/^nan$/i),
      });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: 'outbox metrics not read' });
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    expect(Number((await gauges()).pending)).toBe((await expected()).n);
  });
});
