import type { Embedder } from './embedder.js';
import { buildPrototypes, classify, prototypeTexts } from './classify.js';
export { TOPICS, INTENTIONS } from './taxonomy.js';

export interface MessageAnalysis {
  sentiment: number;
  topics: string[];
  intentions: string[];
  embedding: number[];
}

export interface Analyzer {
  analyzeBatch(texts: string[]): Promise<MessageAnalysis[]>;
  embedder: Embedder;
}

/**
 * Prototype embeddings are computed once per analyzer (one per worker process); afterwards each
 * batch costs exactly ONE embedding call, whatever its size.
 */
export async function createAnalyzer(embedder: Embedder): Promise<Analyzer> {
  const prototypes = buildPrototypes(await embedder.embed(prototypeTexts()));
  return {
    embedder,
    async analyzeBatch(texts) {
      if (texts.length === 0) return [];
      const vectors = await embedder.embed(texts);
      return texts.map((text, i) => ({ ...classify(text, vectors[i], prototypes), embedding: vectors[i] }));
    },
  };
}
