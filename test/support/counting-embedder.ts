import type { Embedder } from '../../src/analysis/embedder.js';

/** Counts the texts a real embedder is asked for: proves when something was (not) embedded again. */
export function counting(inner: Embedder) {
  const texts: string[] = [];
  const embedder: Embedder = {
    name: inner.name,
    dimensions: inner.dimensions,
    embed: (t) => (texts.push(...t), inner.embed(t)),
  };
  return { embedder, texts };
}
