import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import * as m018 from '../../src/db/migrations/018_forget_derived_data.js';
import { computeAggregates, meanEmbedding } from '../../src/profiles/aggregates.js';
import { testDatabaseUrl } from '../support/database.js';
import { insertEventFixture } from '../support/event-fixture.js';

/**
 * Migration 018 removes what earlier versions kept of erased data (docs/privacy.md): a receiver's
 * echo of an erasure's `user_removed`, and what an earlier retention sweep left derived from the
 * texts it erased (the messages' churn words, the profile's vector and churn words).
 */
describe('migration 018 (what earlier versions kept of erased data)', () => {
  let db: Db;
  const GONE = `gone-${process.pid}-${Date.now()}`;
  const echo = (id: string) => `received {"user":{"id":"${id}"}}`;
  const ids = { erasedOk: 0, erasedTimeout: 0, ordinary: 0, legacyUser: 0, oldMessage: 0 };

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const { pipelineId, eventId } = await insertEventFixture(db, 'migration-018');
    const { project_id: projectId } = await db('pipelines').where({ id: pipelineId }).first('project_id');
    const [webhook] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url: 'https://receiver.test/hook', events: ['user_added', 'user_removed'] })
      .returning('id');
    const [erased] = await db('events')
      .insert({
        project_id: projectId,
        pipeline_id: pipelineId,
        segment_slug: 's',
        segment_name: 'S',
        user_pk: null,
        user_id: GONE,
        event_type: 'user_removed',
        reason: 'erased',
        score: 0,
        seq: 2,
      })
      .returning('id');
    const attempt = (event: number, n: number, status_code: number, response_body: string) => ({
      event_id: event,
      webhook_id: webhook.id,
      attempt: n,
      attempt_key: `m018-${event}-${n}`,
      status: status_code === 200 ? 'success' : 'failed',
      status_code,
      response_body,
      duration_ms: 5,
    });
    [ids.erasedTimeout, ids.erasedOk, ids.ordinary] = (
      await db('webhook_deliveries')
        .insert([
          attempt(erased.id, 1, 0, 'timeout after 10000 ms'),
          attempt(erased.id, 2, 200, echo(GONE)),
          attempt(eventId, 1, 200, echo('u')),
        ])
        .returning('id')
    ).map((r) => Number(r.id));

    // A user whose older message an earlier sweep erased: words and profile as that sweep left them.
    const [s] = await db('sources').insert({ project_id: projectId, label: 'api', user_count: 1 }).returning('id');
    const at = [new Date(Date.now() - 40 * 86_400_000), new Date(Date.now() - 86_400_000)];
    const window = [
      { timestamp: at[0], sentiment: -0.8, topics: [], intentions: ['churn'], churnWords: ['quit'] },
      { timestamp: at[1], sentiment: 0.5, topics: [], intentions: [], churnWords: [] },
    ];
    const [user] = await db('users')
      .insert({
        project_id: projectId,
        user_id: 'legacy',
        source_label: 'api',
        message_count: 2,
        aggregates: JSON.stringify(computeAggregates(window)),
        profile_embedding: meanEmbedding([
          [1, 0],
          [0, 1],
        ]),
      })
      .returning('id');
    ids.legacyUser = Number(user.id);
    const [old] = await db('messages')
      .insert({
        user_pk: user.id,
        source_id: s.id,
        item_idx: 0,
        written_at: at[0],
        source_label: 'api',
        text: null,
        embedding: null,
        text_erased_at: new Date(),
        sentiment: -0.8,
        topics: [],
        intentions: ['churn'],
        churn_words: ['quit'],
      })
      .returning('id');
    ids.oldMessage = Number(old.id);
    await db('messages').insert({
      user_pk: user.id,
      source_id: s.id,
      item_idx: 1,
      written_at: at[1],
      source_label: 'api',
      text: 'fine now',
      embedding: [0, 1],
      sentiment: 0.5,
      topics: [],
      intentions: [],
      churn_words: [],
    });
  });
  afterAll(async () => {
    await db.destroy();
  });

  it("reduces erased events' answers to their status, and recomputes what a sweep left derived; twice is the same", async () => {
    for (let run = 0; run < 2; run++) {
      await m018.up(db);
      const bodies = Object.fromEntries(
        (await db('webhook_deliveries').whereIn('id', [ids.erasedOk, ids.erasedTimeout, ids.ordinary])).map((r) => [
          Number(r.id),
          r.response_body,
        ]),
      );
      expect(bodies).toEqual({
        [ids.erasedOk]: 'receiver answered 200; its answer is not kept (the event is about an erased user)',
        // Our own words, and an ordinary event's answer (the operator's to debug), stay.
        [ids.erasedTimeout]: 'timeout after 10000 ms',
        [ids.ordinary]: echo('u'),
      });
      expect((await db('messages').where({ id: ids.oldMessage }).first('churn_words')).churn_words).toBeNull();
      const user = await db('users').where({ id: ids.legacyUser }).first('profile_embedding', 'aggregates');
      expect(user.profile_embedding).toEqual([0, 1]);
      expect(user.aggregates.churn_risk_factors.churn_words).toEqual([]);
      expect(user.aggregates.avg_sentiment).toBe(
        computeAggregates([
          { timestamp: new Date(0), sentiment: -0.8, topics: [], intentions: [] },
          { timestamp: new Date(1), sentiment: 0.5, topics: [], intentions: [] },
        ]).avg_sentiment,
      );
    }
  });
});
