/**
 * `real[]` (float4 arrays: message and profile embeddings, 512 numbers each) to and from text.
 *
 * Hand-written because the fold writes two such arrays and reads up to 20 per message, and pg's
 * generic codecs cost more than the rest of the fold's JavaScript: pg's prepareValue escapes
 * and quotes every element (0.32–0.45 ms a vector here) and prints 17 digits of a double,
 * postgres-array's parser walks characters (0.31–0.35 ms a vector). Nine significant digits
 * round-trip a float4 exactly (IEEE 754: FLT_DECIMAL_DIG = 9): the value is rounded to its float4
 * first, then printed, so the stored value is the same as before: 0.08 ms to write, 0.05 ms to read (measured with node on 512-number unit vectors).
 */

/** A PostgreSQL array literal for a real[] column: finite numbers only (embeddings are). */
export function realArrayLiteral(v: readonly number[]): string {
  let s = '{';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) throw new RangeError(`realArrayLiteral: element ${i} is ${x}`);
    // fround first: rounding the double to nine digits and then to a float4 could land one step off.
    s += (i ? ',' : '') + Math.fround(x).toPrecision(9);
  }
  return s + '}';
}

/**
 * Parses a one-dimensional real[] as PostgreSQL prints it; anything else (NULL elements, nested
 * arrays, explicit bounds) goes to the generic parser it replaces.
 */
export function parseRealArray(text: string, generic: (t: string) => unknown): unknown {
  if (text === '{}') return [];
  if (text[0] !== '{' || text[1] === '{' || text.includes('NULL')) return generic(text);
  const parts = text.slice(1, -1).split(',');
  const out = new Array<number>(parts.length);
  // NaN and ±Infinity print as words that Number reads too.
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}
