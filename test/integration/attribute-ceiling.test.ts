import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { checkMergedAttributes } from '../../src/ingest/attribute-bounds.js';
import type { BatchItem } from '../../src/ingest/validate-batch.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The api's attribute check counts the user's items of batches not yet folded (issue 44: two
 * batches in flight together both passed it, and the fold dropped one's attributes). Which items
 * are pending is read from the tables the fold writes: these cases set each state by hand.
 */
describe('checkMergedAttributes counts what is stored and what is still in flight, nothing else', () => {
  let db: Db;
  let projectId = 0;

  /** `n` keys `<prefix>0..n-1`, short values. */
  const keys = (prefix: string, n: number) =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
  const item = (user_id: string, attributes: Record<string, string | number>): BatchItem => ({
    user_id,
    text: 'Hello.',
    attributes,
    timestamp: new Date(),
  });
  const refusal = async (items: BatchItem[], skip?: Set<number>) =>
    checkMergedAttributes(db, projectId, items, skip).then(
      () => undefined,
      (err: { code?: string; field?: string }) => ({ code: err.code, field: err.field }),
    );

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const [tenant] = await db('tenants').insert({ name: 'ceiling' }).returning('id');
    const [project] = await db('projects').insert({ tenant_id: tenant.id, name: 'ceiling' }).returning('id');
    projectId = Number(project.id);
    const [user] = await db('users')
      .insert({ project_id: projectId, user_id: 'u', attributes: JSON.stringify(keys('s', 100)), source_label: 'api' })
      .returning('id');
    const source = async (completed: boolean, items: { attributes: object; error?: string; skipped?: string }[]) => {
      const [s] = await db('sources')
        .insert({
          project_id: projectId,
          label: 'api',
          user_count: items.length,
          completed_at: completed ? db.fn.now() : null,
        })
        .returning('id');
      await db('source_items').insert(
        items.map((i, idx) => ({
          source_id: s.id,
          idx,
          user_id: 'u',
          text: 'Hi.',
          attributes: JSON.stringify(i.attributes),
          written_at: new Date(),
          error: i.error ?? null,
          skipped: i.skipped ?? null,
        })),
      );
      return Number(s.id);
    };
    // In flight: one pending item (50 keys), one already folded, one failed, one erased.
    const inFlight = await source(false, [
      { attributes: keys('p', 50) },
      { attributes: keys('f', 50) },
      { attributes: keys('e', 50), error: 'analysis failed' },
      { attributes: keys('k', 50), skipped: 'erased' },
    ]);
    await db('messages').insert({
      user_pk: user.id,
      source_id: inFlight,
      item_idx: 1,
      written_at: new Date(),
      source_label: 'api',
      text: 'Hi.',
      sentiment: 0,
      topics: [],
      intentions: [],
      embedding: [0],
    });
    // Completed (a message its retention removed since, say): nothing of it is pending.
    await source(true, [{ attributes: keys('c', 50) }]);
  });

  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  it('100 stored + 50 pending + 50 new is the bound exactly: accepted', async () => {
    expect(await refusal([item('u', keys('n', 50)), item('other', keys('x', 50))])).toBeUndefined();
  });

  it('one key more is refused at the item that brings it, because the pending item counts', async () => {
    expect(await refusal([item('other', { x: 1 }), item('u', keys('n', 50)), item('u', { one: 1 })])).toEqual({
      code: 'quota_exceeded',
      field: 'users[2].attributes',
    });
    // A key the user already has, stored or pending, is not a new one.
    expect(await refusal([item('u', keys('n', 50)), item('u', { s0: 'w', p0: 'w' })])).toBeUndefined();
  });

  it('an item that will not be stored (its user suppressed) does not count', async () => {
    expect(await refusal([item('u', keys('n', 50)), item('u', { one: 1 })], new Set([1]))).toBeUndefined();
  });
});
