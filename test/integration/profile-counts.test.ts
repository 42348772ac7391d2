import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { compactProfileCounts, countSql, filterSql, type ProfileFilters } from '../../src/profiles/profile-counts.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The exact `total` of the profile list comes from trigger-maintained bins plus edge rows; it must
 * equal a plain count(*) for every filter, after inserts, updates, deletes and compaction.
 */
describe('profile counts', () => {
  let db: Db;
  let projectId = 0;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    const [tenant] = await db('tenants').insert({ name: 'counts' }).returning('id');
    const [project] = await db('projects').insert({ tenant_id: tenant.id, name: 'counts' }).returning('id');
    projectId = project.id;
  });

  afterAll(async () => {
    await db.destroy();
  });

  // Scores on and next to bin edges, where a float bin expression could disagree with a comparison.
  // 0.09999999999999999 and its kind sit below an edge but floor(score * 100) puts them in the bin above;
  // 0.29, 0.57 and 0.58 sit on an edge but land in the bin below.
  const edgy = [
    0,
    0.01,
    0.05,
    0.049999999999999996,
    0.1,
    0.09999999999999999,
    0.17,
    0.16999999999999998,
    0.29,
    0.3,
    0.5,
    0.57,
    0.58,
    0.99,
    1,
    0.2899999999999999,
    0.29000000000000004,
    0.1 + 0.2,
  ];
  const score = fc.oneof(fc.constantFrom(...edgy), fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(null));
  const trend = fc.constantFrom('improving', 'stable', 'declining', null);
  const row = fc.record({ score, trend, messages: fc.integer({ min: 0, max: 40 }), analysed: fc.boolean() });
  const filters = fc.record(
    {
      churnGte: fc.oneof(fc.constantFrom(...edgy), fc.double({ min: 0, max: 1, noNaN: true })),
      churnLte: fc.oneof(fc.constantFrom(...edgy), fc.double({ min: 0, max: 1, noNaN: true })),
      trend: fc.constantFrom('improving', 'stable', 'declining'),
      minMessages: fc.integer({ min: 0, max: 30 }),
    },
    { requiredKeys: [] },
  );

  const exact = async (f: ProfileFilters) => {
    const where = filterSql(projectId, f);
    const { rows } = await db.raw(`SELECT count(*)::bigint AS n FROM users WHERE ${where.sql}`, where.bindings);
    return Number(rows[0].n);
  };
  const fast = async (f: ProfileFilters) => {
    const q = countSql(projectId, f);
    const { rows } = await db.raw(q.sql, q.bindings);
    return Number(rows[0].total);
  };
  const values = (r: { score: number | null; trend: string | null; messages: number; analysed: boolean }) => ({
    churn_risk_score: r.score,
    sentiment_trend: r.trend,
    message_count: r.messages,
    aggregates: r.analysed ? { seeded: true } : null,
  });

  it('equals count(*) for every filter after inserts, updates, deletes and compaction', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.array(row, { maxLength: 10 }),
        fc.array(filters, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (inserted, updated, checks, compact) => {
          const ids = await db('users')
            .insert(
              inserted.map((r) => ({ project_id: projectId, user_id: `u${n++}`, source_label: 'api', ...values(r) })),
            )
            .returning('id');
          for (const [i, r] of updated.entries())
            await db('users')
              .where({ id: ids[i % ids.length].id })
              .update(values(r));
          // A multi-row statement too: the triggers see whole transition tables per statement.
          await db.raw('UPDATE users SET message_count = message_count + 1 WHERE project_id = ? AND id % 3 = 0', [
            projectId,
          ]);
          if (ids.length > 3) await db('users').whereIn('id', [ids[0].id, ids[2].id]).delete();
          if (compact) await compactProfileCounts(db);
          for (const f of [{}, ...checks]) expect(await fast(f), JSON.stringify(f)).toBe(await exact(f));
        },
      ),
      { numRuns: 100, seed: 20261122 },
    );
  });

  it('keeps the sum of bins after compaction and counts a project-wide delete', async () => {
    await compactProfileCounts(db);
    const before = await fast({});
    expect(before).toBe(await exact({}));
    const [{ n }] = await db('profile_counts').where({ project_id: projectId }).count<{ n: string }[]>('* as n');
    // Compaction leaves at most one row per bin in use.
    expect(Number(n)).toBeLessThanOrEqual(4 * 102 * 22);
    await db('users').where({ project_id: projectId }).delete();
    expect(await fast({})).toBe(0);
    expect(await fast({ churnGte: 0.3, trend: 'stable' })).toBe(0);
  });
});
