import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { sweepRetention } from '../../src/privacy/retention.js';
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
