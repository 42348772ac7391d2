import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { realArrayLiteral } from '../../src/db/real-array.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The fold writes embeddings as nine-digit float4 text (src/db/real-array.ts) instead of pg's
 * seventeen-digit doubles: PostgreSQL must store exactly the same real[] either way, and the
 * driver read it back as the same numbers.
 */
describe('real[] as the fold writes it', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(testDatabaseUrl(), 2);
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('stores what pg stored from the doubles, element for element, and reads it back', async () => {
    // Unit vectors as the embedder gives them, and edge magnitudes.
    const vectors = Array.from({ length: 20 }, (_, r) => {
      const v = Array.from({ length: 512 }, (_, i) => Math.sin((i + 1) * (r + 1) * 12.9898) * 43758.5453);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
    vectors.push([1e-38, -3.4e38, 1.17549435e-38, 0, -0, 0.1, 1 / 3]);
    for (const v of vectors) {
      const { rows } = await db.raw(`SELECT ?::real[] = ?::real[] AS same, ?::real[] AS back`, [
        v,
        realArrayLiteral(v),
        realArrayLiteral(v),
      ]);
      expect(rows[0].same).toBe(true);
      // Numerically equal (=== takes -0 for 0, as PostgreSQL's equality does: a literal prints -0 as 0).
      const back = rows[0].back as number[];
      expect(back.filter((x, i) => Math.fround(x) !== Math.fround(v[i]))).toEqual([]);
      expect(back).toHaveLength(v.length);
    }
  });
});
