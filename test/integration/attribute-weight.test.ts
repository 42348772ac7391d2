import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { ATTRIBUTE_ENTRY_BYTES_SQL, attributeValueText, attributeWeight } from '../../src/ingest/attribute-bounds.js';
import type { Scalar } from '../../src/ingest/validate-batch.js';
import { isStorableText } from '../../src/validation.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * The api weighs attributes in JavaScript (attributeWeight) before it answers; the fold weighs the
 * merged jsonb in SQL (ATTRIBUTE_ENTRY_BYTES_SQL). They must agree on every value a submission can
 * carry, or a batch answered 202 has its attributes dropped at the fold (issue 44). Each object
 * reaches PostgreSQL as the service sends it: JSON.stringify, then `::jsonb`.
 */
describe("attributeWeight is PostgreSQL's measure of the stored jsonb", () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(testDatabaseUrl(), 2);
  });
  afterAll(async () => {
    await db.destroy();
  });

  /** PostgreSQL's count and bytes of the object, and the object as the driver reads it back. */
  const measured = async (attributes: Record<string, Scalar>) => {
    const { rows } = await db.raw(
      `SELECT count(*)::int AS keys, coalesce(sum(${ATTRIBUTE_ENTRY_BYTES_SQL}), 0)::int AS bytes,
              (SELECT ?::jsonb) AS stored
         FROM jsonb_each(?::jsonb)`,
      [JSON.stringify(attributes), JSON.stringify(attributes)],
    );
    return rows[0] as { keys: number; bytes: number; stored: Record<string, Scalar> };
  };

  /** Each value's text as PostgreSQL prints it, by key. */
  const texts = async (attributes: Record<string, Scalar>) => {
    const { rows } = await db.raw(`SELECT key, value::text AS text FROM jsonb_each(?::jsonb)`, [
      JSON.stringify(attributes),
    ]);
    return Object.fromEntries((rows as { key: string; text: string }[]).map((r) => [r.key, r.text]));
  };

  /** Compares value by value, 50 keys (a submission's most) per query. */
  const expectSameTexts = async (values: Scalar[]) => {
    let compared = 0;
    for (let i = 0; i < values.length; i += 50) {
      const attributes = Object.fromEntries(values.slice(i, i + 50).map((v, k) => [`v${k}`, v]));
      const pg = await texts(attributes);
      const js = Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, attributeValueText(v)]));
      expect(js, `values ${i}..${i + 49}`).toEqual(pg);
      compared += Object.keys(attributes).length;
    }
    return compared;
  };

  it('prints every number as PostgreSQL does: each decimal and binary exponent, the extremes, both signs', async () => {
    const numbers: number[] = [
      0,
      -0,
      5e-324,
      -5e-324,
      2.2250738585072014e-308,
      1.7976931348623157e308,
      -1.7976931348623157e308,
      1e21,
      1e-7,
      1e-6,
      9.999999999999999e20,
      123456789012345680000,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 53) + 1,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      0.1 + 0.2,
      1e300,
      1.5e-7,
    ];
    for (let e = -324; e <= 308; e++) {
      for (const m of [1, 1.5, 2.5, 7, 9.999999999999998, 1.2345678901234567]) {
        numbers.push(Number(`${m}e${e}`), -Number(`${m}e${e}`));
      }
    }
    for (let k = -1074; k <= 1023; k++) numbers.push(2 ** k, -(2 ** k) * 1.0000000000000002);
    const finite = numbers.filter(Number.isFinite);
    expect(await expectSameTexts(finite)).toBe(finite.length);
    expect(finite.length).toBeGreaterThan(11_000);
  });

  it('prints every string as PostgreSQL does: each ASCII and control character, non-ASCII, quotes', async () => {
    const strings = [
      ...Array.from({ length: 127 }, (_, c) => String.fromCharCode(c + 1)),
      'é',
      '€',
      '😀',
      '\u2028\u2029',
      '\ufeff',
      '\ud7ff\ue000\uffff',
      '\u{10ffff}',
      '"\\/',
      'tab\there\nand "quoted" \\ back',
      '',
      ' ',
    ];
    expect(await expectSameTexts([...strings, true, false, null])).toBe(strings.length + 3);
  });

  // Strings a submission may carry: no NUL, no unpaired surrogate (validate-batch.ts refuses those).
  const storable = (maxLength: number) =>
    fc
      .oneof(
        fc.string({ maxLength }),
        fc.string({ unit: 'binary', maxLength }),
        fc.string({ unit: fc.constantFrom(...'\u0001\u0008\u0009\u000a\u000c\u000d\u001f"\\/é😀'), maxLength }),
      )
      .filter(isStorableText);
  const scalar: fc.Arbitrary<Scalar> = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(5e-324, 1.7976931348623157e308, 1e21, 1e-7, 1e300, -1e-300, 2 ** 53, -(2 ** 53) - 2),
    storable(1_000),
    fc.boolean(),
    fc.constant(null),
  );
  const attributes = fc.dictionary(
    storable(100).filter((k) => k !== '' && k !== '__proto__'),
    scalar,
    { minKeys: 1, maxKeys: 50, size: 'medium' },
  );

  it('weighs generated attributes (doubles of every exponent, any storable text, booleans, null) as PostgreSQL does', async () => {
    const seen = { runs: 0, values: 0, exponents: 0, controls: 0, nonAscii: 0, bytes: 0 };
    await fc.assert(
      fc.asyncProperty(attributes, async (a) => {
        const pg = await measured(a);
        expect(attributeWeight(a)).toEqual({ keys: pg.keys, bytes: pg.bytes });
        // What the api reads back from PostgreSQL (stored attributes) weighs the same.
        expect(attributeWeight(pg.stored)).toEqual({ keys: pg.keys, bytes: pg.bytes });
        seen.runs++;
        seen.bytes += pg.bytes;
        for (const v of Object.values(a)) {
          seen.values++;
          if (typeof v === 'number' && JSON.stringify(v).includes('e')) seen.exponents++;
          if (typeof v === 'string' && [...v].some((c) => c < ' ')) seen.controls++;
          if (typeof v === 'string' && [...v].some((c) => c > '\u007f')) seen.nonAscii++;
        }
      }),
      { numRuns: 500 },
    );
    // The runs covered what differs between the two texts, not only plain values.
    expect(seen.runs).toBe(500);
    expect(seen.values).toBeGreaterThan(5_000);
    expect(seen.exponents).toBeGreaterThan(500);
    expect(seen.controls).toBeGreaterThan(100);
    expect(seen.nonAscii).toBeGreaterThan(100);
    console.log('attribute weights compared', seen);
  });
});
