/**
 * Near-duplicates between two sets of texts: character 5-gram Jaccard similarity at or above a
 * bound (0.5 by default). `npm run eval` counts them between the corpus and the evaluation file,
 * which must be 0: a paraphrase on both sides would make the evaluation a test of memory.
 */
export function charGrams(text: string, n = 5): Set<string> {
  const t = text.toLowerCase().replace(/\s+/g, ' ').trim();
  const out = new Set<string>();
  for (let i = 0; i + n <= t.length; i++) out.add(t.slice(i, i + n));
  if (out.size === 0) out.add(t);
  return out;
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const g of small) if (large.has(g)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Pairs [i, j] (index in `left`, index in `right`) at or above `bound`. */
export function nearDuplicates(left: string[], right: string[], bound = 0.5): [number, number][] {
  const l = left.map((t) => charGrams(t));
  const r = right.map((t) => charGrams(t));
  const pairs: [number, number][] = [];
  l.forEach((a, i) =>
    r.forEach((b, j) => {
      // Jaccard can reach the bound only when the sizes are within that ratio of each other.
      if (Math.min(a.size, b.size) < bound * Math.max(a.size, b.size)) return;
      if (jaccard(a, b) >= bound) pairs.push([i, j]);
    }),
  );
  return pairs;
}
