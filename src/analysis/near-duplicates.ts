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

/**
 * Pairs [i, j] (index in `left`, index in `right`), at or above `bound`, in that order.
 *
 * Exact, by an inverted index from each gram to the right texts holding it: a pair is scored only
 * when the two share a gram, and its shared count comes from the postings instead of a set
 * intersection. Written by hand because the libraries for this (MinHash, LSH) answer
 * approximately, and these pairs decide what an evaluation may hold: the brute-force loop it
 * replaces (`nearDuplicatesBruteForce`, kept as the tests' reference) took most of the held-out
 * sets' test file's minute and a half.
 */
export function nearDuplicates(left: string[], right: string[], bound = 0.5): [number, number][] {
  const r = right.map((t) => charGrams(t));
  const postings = new Map<string, number[]>();
  r.forEach((grams, j) => {
    for (const g of grams) {
      const list = postings.get(g);
      if (list) list.push(j);
      else postings.set(g, [j]);
    }
  });
  const shared = new Int32Array(right.length);
  const pairs: [number, number][] = [];
  left.forEach((text, i) => {
    const a = charGrams(text);
    const touched: number[] = [];
    for (const g of a) {
      for (const j of postings.get(g) ?? []) {
        if (shared[j] === 0) touched.push(j);
        shared[j]++;
      }
    }
    touched.sort((x, y) => x - y);
    for (const j of touched) {
      const s = shared[j];
      shared[j] = 0;
      if (s / (a.size + r[j].size - s) >= bound) pairs.push([i, j]);
    }
  });
  return pairs;
}

/** The plain loop over every pair: the reference `nearDuplicates` is tested against. */
export function nearDuplicatesBruteForce(left: string[], right: string[], bound = 0.5): [number, number][] {
  const l = left.map((t) => charGrams(t));
  const r = right.map((t) => charGrams(t));
  const pairs: [number, number][] = [];
  l.forEach((a, i) =>
    r.forEach((b, j) => {
      if (jaccard(a, b) >= bound) pairs.push([i, j]);
    }),
  );
  return pairs;
}
