import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { DISPATCH_SQL, SETTLE_AWAITING_SQL } from '../../src/outbox/delivery-admission.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The relay's admission per webhook (issue 25): a run counts until its first attempt is recorded.
 * A local-activity attempt can be recorded before the relay's pass that started the run has
 * committed `awaiting_attempt`; such a run must not hold a place (it held one for 5 minutes, and
 * a fan-out stalled once eight had leaked).
 */
describe('relay admission with first attempts recorded before the flag', () => {
  let db: Db;
  let projectId: number;
  let webhookId: number;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const [t] = await db('tenants').insert({ name: 'admission' }).returning('id');
    const [p] = await db('projects').insert({ tenant_id: t.id, name: 'admission' }).returning('id');
    const [pl] = await db('pipelines').insert({ project_id: p.id, name: 'main' }).returning('id');
    const [w] = await db('webhooks')
      .insert({ pipeline_id: pl.id, url: 'https://example.com/hook', events: ['user_added'] })
      .returning('id');
    projectId = Number(p.id);
    webhookId = Number(w.id);
    // 8 runs started whose first attempts are recorded, but whose flag was set after the attempt
    // (the race), and 5 events waiting in the outbox.
    const events = await db.raw(
      `INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
       SELECT ?, ?, '', '', '', 'ping', 0, 0 FROM generate_series(1, 13) RETURNING id`,
      [projectId, pl.id],
    );
    const ids: number[] = events.rows.map((r: { id: number }) => Number(r.id));
    for (const [i, eventId] of ids.entries()) {
      const started = i < 8;
      await db('outbox').insert({
        event_id: eventId,
        webhook_id: webhookId,
        ...(started && { dispatched_at: db.fn.now(), workflow_id: `wf-${eventId}`, awaiting_attempt: true }),
      });
      if (started)
        await db('webhook_deliveries').insert({
          event_id: eventId,
          webhook_id: webhookId,
          attempt: 1,
          attempt_key: `wf-${eventId}:1`,
          status: 'success',
          status_code: 200,
          response_body: '',
          duration_ms: 1,
        });
    }
  });
  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  const claimable = async () =>
    db.transaction(async (trx) => {
      const { rows } = await trx.raw(DISPATCH_SQL, [8, 32]);
      return rows.filter((r: { webhook_id: number }) => Number(r.webhook_id) === webhookId).length;
    });

  it('admits the waiting events: runs whose first attempt is recorded hold no place', async () => {
    expect(await claimable()).toBe(5);
  });

  it('settles the flags of those runs, and leaves runs still awaiting their attempt', async () => {
    const [{ id: waitingEvent }] = await db('outbox')
      .where({ webhook_id: webhookId })
      .whereNull('dispatched_at')
      .orderBy('id')
      .limit(1)
      .select('event_id as id');
    await db('outbox')
      .where({ webhook_id: webhookId, event_id: waitingEvent })
      .update({ dispatched_at: db.fn.now(), workflow_id: 'wf-still-waiting', awaiting_attempt: true });
    await db.raw(SETTLE_AWAITING_SQL);
    const awaiting = await db('outbox').where({ webhook_id: webhookId, awaiting_attempt: true }).pluck('workflow_id');
    expect(awaiting).toEqual(['wf-still-waiting']);
    expect(await claimable()).toBe(4);
  });
});
