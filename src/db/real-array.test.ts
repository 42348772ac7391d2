import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { parseRealArray, realArrayLiteral } from './real-array.js';

const generic = pg.types.getTypeParser(1021 as Parameters<typeof pg.types.getTypeParser>[0]) as (t: string) => unknown;

describe('real[] codec', () => {
  it('writes nine significant digits: a float4 survives the round trip exactly', () => {
    const v = Array.from({ length: 512 }, (_, i) => Math.sin(i * 12.9898) * 0.1);
    const back = parseRealArray(realArrayLiteral(v), generic) as number[];
    expect(back).toHaveLength(512);
    back.forEach((x, i) => expect(Math.fround(x)).toBe(Math.fround(v[i])));
  });

  it('reads what the generic parser reads, and hands it what it does not take', () => {
    for (const text of ['{}', '{1.5,-2,0.000123456789}', '{NaN,Infinity,-Infinity}', '{1,NULL,3}', '{{1,2},{3,4}}'])
      expect(parseRealArray(text, generic)).toEqual(generic(text));
  });

  it('refuses a number PostgreSQL would store as something else', () => {
    expect(() => realArrayLiteral([1, Number.NaN])).toThrow(/element 1/);
  });
});
