import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { EXPORT_PAGE_BYTES, EXPORT_PAGE_ROWS, messagesOf, pendingItemsOf } from '../../src/privacy/export-pages.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The export reads its lists in pages bounded by bytes (docs/privacy.md): a page of long texts
 * holds fewer rows than a page of short ones, never much more than EXPORT_PAGE_BYTES, and every
 * row is read, in order, however many there are.
 */
describe('export pages', () => {
  let db: Db;
  let projectId: number;
  const LONG = 300; // messages of 10,000 characters (3 MB), after 1,200 short ones
  const SHORT = 1_200;
  const PENDING = 1_234;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 4);
    const [t] = await db('tenants').insert({ name: 'export-pages' }).returning('id');
    const [p] = await db('projects').insert({ tenant_id: t.id, name: 'export-pages' }).returning('id');
    projectId = Number(p.id);
    const [u] = await db('users').insert({ project_id: projectId, user_id: 'u', source_label: 'api' }).returning('id');
    const [s] = await db('sources')
      .insert({ project_id: projectId, label: 'api', user_count: SHORT + LONG + PENDING })
      .returning('id');
    await db.raw(
      `INSERT INTO messages (user_pk, source_id, item_idx, written_at, source_label, text, sentiment, topics, intentions)
       SELECT ?, ?, g, now() - make_interval(mins => ? - g), 'api',
              CASE WHEN g < ? THEN 'short ' || g ELSE rpad('long ' || g || ' ', 10000, 'é') END, 0, '{}', '{}'
         FROM generate_series(0, ? - 1) g`,
      [u.id, s.id, SHORT + LONG, SHORT, SHORT + LONG],
    );
    // Items of the same batch past the messages' indexes: not folded into a message, so pending.
    await db.raw(
      `INSERT INTO source_items (source_id, idx, user_id, text, attributes, written_at)
       SELECT ?, 100000 + g, 'u', 'pending ' || g, '{"plan":"pro"}', now() FROM generate_series(0, ? - 1) g`,
      [s.id, PENDING],
    );
  });
  afterAll(async () => {
    await db('projects').where({ id: projectId }).delete();
    await db.destroy();
  });

  async function read(pages: AsyncIterable<string>) {
    const sizes: { bytes: number; rows: number }[] = [];
    const all: any[] = [];
    for await (const piece of pages) {
      const rows = JSON.parse(`[${piece.replace(/^,/, '')}]`);
      sizes.push({ bytes: Buffer.byteLength(piece), rows: rows.length });
      all.push(...rows);
    }
    return { sizes, all };
  }

  it('reads every message in order, in pages of at most 500 rows and about a megabyte', async () => {
    const userPk = (await db('users').where({ project_id: projectId, user_id: 'u' }).first('id')).id;
    const { sizes, all } = await read(messagesOf(db, userPk));
    expect(all).toHaveLength(SHORT + LONG);
    expect(all.map((m) => Number(/^(?:short|long) (\d+)/.exec(m.text)![1]))).toEqual(
      Array.from({ length: SHORT + LONG }, (_, i) => i),
    );
    // Short texts: full pages of rows; long ones (a 10,000-character text is ~20 KB here): cut by bytes.
    expect(sizes.slice(0, 2).map((p) => p.rows)).toEqual([EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS]);
    for (const p of sizes) expect(p.bytes).toBeLessThan(EXPORT_PAGE_BYTES + 25_000);
    const longOnly = sizes.slice(3);
    expect(longOnly.length).toBeGreaterThan(4);
    for (const p of longOnly.slice(0, -1)) expect(p.rows).toBe(Math.ceil(EXPORT_PAGE_BYTES / (20_000 + 512)));
  });

  it('weighs texts as the JSON they become: control characters do not make a page six times larger', async () => {
    // 200 messages of 10,000 control characters: 10 KB stored each, 60 KB as JSON (\u0001).
    const [u] = await db('users')
      .insert({ project_id: projectId, user_id: 'ctl', source_label: 'api' })
      .returning('id');
    const [s] = await db('sources').insert({ project_id: projectId, label: 'api', user_count: 200 }).returning('id');
    await db.raw(
      `INSERT INTO messages (user_pk, source_id, item_idx, written_at, source_label, text, sentiment, topics, intentions)
       SELECT ?, ?, g, now() - make_interval(mins => 200 - g), 'api', repeat(chr(1), 10000), 0, '{}', '{}'
         FROM generate_series(0, 199) g`,
      [u.id, s.id],
    );
    const { sizes, all } = await read(messagesOf(db, u.id));
    expect(all).toHaveLength(200);
    expect(sizes.length).toBeGreaterThan(10);
    for (const p of sizes) expect(p.bytes).toBeLessThan(EXPORT_PAGE_BYTES + 61_000);
  });

  it('reads every pending item, past what one page holds, never cut', async () => {
    const { sizes, all } = await read(pendingItemsOf(db, projectId, 'u'));
    expect(all).toHaveLength(PENDING);
    expect(all.map((i) => i.text)).toEqual(Array.from({ length: PENDING }, (_, g) => `pending ${g}`));
    expect(all[0]).toMatchObject({ index: 100000, attributes: { plan: 'pro' }, state: 'waiting' });
    expect(sizes.map((p) => p.rows)).toEqual([500, 500, 234]);
  });
});
