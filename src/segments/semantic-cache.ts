import type { Embedder } from '../analysis/embedder.js';
import { semanticDescriptions, type Rule } from './rules.js';

export interface SemanticCache {
  embeddingsFor(rules: Rule[]): Promise<Map<string, number[]>>;
}

/** Embeds each semantic description once per worker process (descriptions rarely change). */
export function createSemanticCache(embedder: () => Promise<Embedder>, maxEntries = 1_000): SemanticCache {
  const cache = new Map<string, number[]>();
  return {
    async embeddingsFor(rules) {
      const wanted = [...new Set(rules.flatMap((r) => semanticDescriptions(r)))];
      const missing = wanted.filter((d) => !cache.has(d));
      if (missing.length > 0) {
        const vectors = await (await embedder()).embed(missing);
        if (cache.size + missing.length > maxEntries) cache.clear();
        missing.forEach((d, i) => cache.set(d, vectors[i]));
      }
      return new Map(wanted.map((d) => [d, cache.get(d)!]));
    },
  };
}
