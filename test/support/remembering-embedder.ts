import type { Embedder } from '../../src/analysis/embedder.js';

/**
 * A real embedder that embeds each distinct text once per test file: the local model gives a text
 * the same vector, to 1e-5, whatever else is in its call (src/analysis/embedder.test.ts), so a file
 * that trains heads again and again on one slice of the corpus spares the repeats (about five seconds
 * a training on 2 cores). Heads trained twice from it are trained from the very same vectors. Wrap it
 * in `counting` to see what the code under test asks for: the requests still arrive.
 */
export function remembering(inner: Embedder): Embedder {
  const vectors = new Map<string, number[]>();
  return {
    name: inner.name,
    dimensions: inner.dimensions,
    async embed(texts, lane) {
      const missing = [...new Set(texts.filter((t) => !vectors.has(t)))];
      if (missing.length > 0) {
        const got = await inner.embed(missing, lane);
        missing.forEach((t, i) => vectors.set(t, got[i]));
      }
      // Copies: a caller may scale a vector in place.
      return texts.map((t) => vectors.get(t)!.slice());
    },
  };
}
