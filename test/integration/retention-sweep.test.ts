import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { sweepRetention } from '../../src/privacy/retention.js';
import { computeAggregates, meanEmbedding } from '../../src/profiles/aggregates.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The retention sweep takes only rows nobody holds (docs/privacy.md): a message row locked by
 * another transaction neither stops the sweep nor makes it wait; it is erased at the next run.
 */
describe('retention sweep', () => {
  let db: Db;
  let projectId: number;
  const log = { info: () => undefined, warn: () => undefined } as never;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 4);
    const [t] = await db('tenants').insert({ name: 'retention-sweep' }).returning('id');
    const [p] = await db('projects')
      .insert({ tenant_id: t.id, name: 'retention-sweep', message_retention_days: 30 })
      .returning('id');
    projectId = Number(p.id);
    const [u] = await db('users').insert({ project_id: projectId, user_id: 'u', source_label: 'api' }).returning('id');
    const [s] = await db('sources').insert({ project_id: projectId, label: 'api', user_count: 3 }).returning('id');
    const days = [40, 35, 1];
    await db('source_items').insert(
      days.map((d, idx) => ({
        source_id: s.id,
        idx,
        user_id: 'u',
        text: `text ${d}`,
        written_at: db.raw(`now() - make_interval(days => ?)`, [d]),
      })),
    );
    await db('messages').insert(
      days.map((d, idx) => ({
        user_pk: u.id,
        source_id: s.id,
        item_idx: idx,
        written_at: db.raw(`now() - make_interval(days => ?)`, [d]),
        source_label: 'api',
        text: `text ${d}`,
        sentiment: -0.5,
        topics: ['billing'],
        intentions: [],
        embedding: [0.1, 0.2],
      })),
    );
  });
  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  const texts = async () =>
    (
      await db('messages as m')
        .join('users as u', 'u.id', 'm.user_pk')
        .where('u.project_id', projectId)
        .orderBy('m.item_idx')
        .select('m.text', 'm.embedding', 'm.sentiment')
    ).map((r) => [r.text, r.embedding === null ? null : 'vector', r.sentiment]);

  it('skips a row another transaction holds, without waiting, and erases it at the next run', async () => {
    const holder = await db.transaction();
    try {
      // Another transaction holds the 40-day-old message (as a long fold or an operator could).
      await holder('messages')
        .where({ item_idx: 0 })
        .whereIn('user_pk', db('users').where({ project_id: projectId }).select('id'))
        .forUpdate()
        .select('id');
      await sweepRetention(db, log);
      expect(await texts()).toEqual([
        ['text 40', 'vector', -0.5],
        [null, null, -0.5],
        ['text 1', 'vector', -0.5],
      ]);
    } finally {
      await holder.rollback();
    }
    await sweepRetention(db, log);
    expect(await texts()).toEqual([
      [null, null, -0.5],
      [null, null, -0.5],
      ['text 1', 'vector', -0.5],
    ]);
    const items = await db('source_items as si')
      .join('sources as s', 's.id', 'si.source_id')
      .where('s.project_id', projectId)
      .orderBy('si.idx')
      .pluck('si.text');
    expect(items).toEqual([null, null, 'text 1']);
    const audit = await db('erasures')
      .where({ project_id: projectId, kind: 'retention' })
      .orderBy('id')
      .pluck('counts');
    expect(audit.map((c) => c.messages)).toEqual([1, 1]);
  });
});

/**
 * What was derived from an erased text goes with it (docs/privacy.md, Retention): a swept message's
 * churn words (words of its text), and the profile's vector and churn words recomputed from the
 * messages that keep theirs. The rest of the profile (computed from the analysis) is unchanged.
 */
describe('retention sweep and what was derived from the text', () => {
  let db: Db;
  let projectId: number;
  const log = { info: () => undefined, warn: () => undefined } as never;
  const DAY = 86_400_000;
  /** Each user's messages: age in days, vector, churn words. */
  const USERS: Record<string, { days: number; vector: number[]; words: string[] }[]> = {
    // One message, past retention: the profile vector is exactly its vector.
    one: [{ days: 40, vector: [0.6, 0.8], words: ['cancel', 'my subscription'] }],
    // One message past retention, one recent.
    mixed: [
      { days: 35, vector: [1, 0], words: ['leaving'] },
      { days: 1, vector: [0, 1], words: ['too expensive'] },
    ],
    // Like `one`, its row held as a fold holds it.
    folding: [{ days: 40, vector: [0, 1], words: ['switching'] }],
  };

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 4);
    const [t] = await db('tenants').insert({ name: 'retention-derived' }).returning('id');
    const [p] = await db('projects')
      .insert({ tenant_id: t.id, name: 'retention-derived', message_retention_days: 30 })
      .returning('id');
    projectId = Number(p.id);
    const [s] = await db('sources').insert({ project_id: projectId, label: 'api', user_count: 3 }).returning('id');
    let idx = 0;
    for (const [userId, messages] of Object.entries(USERS)) {
      const at = messages.map((m) => new Date(Date.now() - m.days * DAY));
      // The profile as the fold writes it (process-chunk.ts), from these messages.
      const aggregates = computeAggregates(
        messages.map((m, i) => ({
          timestamp: at[i],
          sentiment: -0.6,
          topics: ['pricing'],
          intentions: ['churn'],
          churnWords: m.words,
        })),
      );
      const [u] = await db('users')
        .insert({
          project_id: projectId,
          user_id: userId,
          source_label: 'api',
          message_count: messages.length,
          aggregates: JSON.stringify(aggregates),
          churn_risk_score: aggregates.churn_risk_score,
          sentiment_trend: aggregates.sentiment_trend,
          profile_embedding: meanEmbedding(messages.map((m) => m.vector)),
          updated_at: new Date(Date.now() - 2 * DAY),
        })
        .returning('id');
      for (const [i, m] of messages.entries()) {
        await db('source_items').insert({
          source_id: s.id,
          idx,
          user_id: userId,
          text: `text ${idx}`,
          written_at: at[i],
        });
        await db('messages').insert({
          user_pk: u.id,
          source_id: s.id,
          item_idx: idx++,
          written_at: at[i],
          source_label: 'api',
          text: `I will ${m.words.join(' and ')}`,
          sentiment: -0.6,
          topics: ['pricing'],
          intentions: ['churn'],
          churn_words: m.words,
          embedding: m.vector,
        });
      }
    }
  });
  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  const profile = async (userId: string) =>
    db('users')
      .where({ project_id: projectId, user_id: userId })
      .first('aggregates', 'profile_embedding', 'churn_risk_score', 'sentiment_trend', 'updated_at');
  const churnWords = async (userId: string) =>
    (
      await db('messages as m')
        .join('users as u', 'u.id', 'm.user_pk')
        .where({ 'u.project_id': projectId, 'u.user_id': userId })
        .orderBy('m.written_at')
        .select('m.churn_words')
    ).map((r) => r.churn_words);
  /** The profile but its vector and churn words: what the sweep must leave as it was. */
  const rest = (p: Record<string, any>) => ({
    ...p,
    profile_embedding: undefined,
    aggregates: { ...p.aggregates, churn_risk_factors: { ...p.aggregates.churn_risk_factors, churn_words: undefined } },
  });
  const close = (v: number[] | null) => v && v.map((x) => Math.round(x * 1e4) / 1e4);

  it("clears a swept message's churn words and recomputes the profile's vector and churn words from what stays", async () => {
    const before = { one: await profile('one'), mixed: await profile('mixed'), folding: await profile('folding') };
    expect(before.one.aggregates.churn_risk_factors.churn_words).toEqual(['cancel', 'my subscription']);
    expect(close(before.mixed.profile_embedding)).toEqual([0.7071, 0.7071]);

    // A fold holds `folding`'s row (the users upsert): the sweep neither waits for it nor touches its messages.
    const holder = await db.transaction();
    try {
      await holder('users').where({ project_id: projectId, user_id: 'folding' }).forUpdate().select('id');
      await sweepRetention(db, log);
    } finally {
      await holder.rollback();
    }

    expect(await churnWords('one')).toEqual([null]);
    expect(await churnWords('mixed')).toEqual([null, ['too expensive']]);
    const one = await profile('one');
    expect(one.profile_embedding).toBeNull();
    expect(one.aggregates.churn_risk_factors.churn_words).toEqual([]);
    const mixed = await profile('mixed');
    expect(close(mixed.profile_embedding)).toEqual([0, 1]);
    expect(mixed.aggregates.churn_risk_factors.churn_words).toEqual(['too expensive']);
    // Everything else the profile says was computed from the analysis, which stays: unchanged.
    expect(rest(one)).toEqual(rest(before.one));
    expect(rest(mixed)).toEqual(rest(before.mixed));
    expect(await churnWords('folding')).toEqual([['switching']]);
    expect(await profile('folding')).toEqual(before.folding);

    // Let go, the next run takes it.
    await sweepRetention(db, log);
    expect(await churnWords('folding')).toEqual([null]);
    const folding = await profile('folding');
    expect(folding.profile_embedding).toBeNull();
    expect(rest(folding)).toEqual(rest(before.folding));
  });
});
