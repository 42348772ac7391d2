import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { queueSubscribedDeliveries } from '../../src/outbox/outbox.js';
import { whyNotSent, type Subscriber } from '../../src/outbox/subscription.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The subscription rule is written twice, in SQL for the fold's queueing and in TypeScript for the
 * check before each attempt: here both answer every combination of an active flag, event types
 * and segment lists, for both event types and two segments, and must agree on each.
 */
describe('the subscription rule, SQL and TypeScript', () => {
  let db: Db;
  let projectId: number;
  let pipelineId: number;
  const subscribers: (Subscriber & { id?: number })[] = [];

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const [t] = await db('tenants').insert({ name: 'subscription' }).returning('id');
    const [p] = await db('projects').insert({ tenant_id: t.id, name: 'subscription' }).returning('id');
    const [pl] = await db('pipelines').insert({ project_id: p.id, name: 'main' }).returning('id');
    projectId = Number(p.id);
    pipelineId = Number(pl.id);
    for (const is_active of [true, false])
      for (const events of [['user_added'], ['user_removed'], ['user_added', 'user_removed']])
        for (const segments of [null, [], ['churners'], ['churners', 'fans']])
          subscribers.push({ is_active, events, segments });
    for (const s of subscribers) {
      const [w] = await db('webhooks')
        .insert({ pipeline_id: pipelineId, url: 'https://example.com/hook', ...s })
        .returning('id');
      s.id = Number(w.id);
    }
  });
  afterAll(async () => db?.destroy());

  for (const eventType of ['user_added', 'user_removed'])
    for (const segmentSlug of ['churners', 'fans', 'other'])
      it(`${eventType} of segment ${segmentSlug}: the queued webhooks are those whyNotSent lets through`, async () => {
        const queued = await db.transaction(async (trx) => {
          const [event] = await trx('events')
            .insert({
              project_id: projectId,
              pipeline_id: pipelineId,
              segment_slug: segmentSlug,
              segment_name: segmentSlug,
              user_id: 'u',
              event_type: eventType,
              score: 1,
              seq: 1,
            })
            .returning('id');
          await queueSubscribedDeliveries(trx, { eventId: Number(event.id), pipelineId, eventType, segmentSlug });
          return (await trx('outbox').where({ event_id: event.id }).pluck('webhook_id'))
            .map(Number)
            .sort((a, b) => a - b);
        });
        const expected = subscribers
          .filter((s) => whyNotSent(s, { event_type: eventType, segment_slug: segmentSlug }) === undefined)
          .map((s) => s.id!);
        expect(queued).toEqual(expected);
        // Neither side is trivial: some webhooks take the event and some do not.
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(subscribers.length);
      });
});
