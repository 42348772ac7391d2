import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Corpus } from './corpus.js';
import type { Embedder, Lane } from './embedder.js';
import { encodeTexts } from './features.js';
import { applyHeads, type Heads } from './heads.js';
import { loadOrTrainHeads } from './heads-store.js';
export { TOPICS, INTENTIONS } from './taxonomy.js';

export interface MessageAnalysis {
  sentiment: number;
  topics: string[];
  intentions: string[];
  /** The words that drove a churn reading (empty when the message was not read as churn). */
  churnWords: string[];
  embedding: number[];
}

export interface Analyzer {
  /** `lane`: who the texts are for (a tenant), so that tenants take turns on the embedder. */
  analyzeBatch(texts: string[], lane?: Lane): Promise<MessageAnalysis[]>;
  embedder: Embedder;
  heads: Heads;
}

function analyzerWithHeads(embedder: Embedder, heads: Heads): Analyzer {
  return {
    embedder,
    heads,
    async analyzeBatch(texts, lane) {
      if (texts.length === 0) return [];
      const encoded = await encodeTexts(embedder, texts, lane, { pieces: heads.options.stackPieces });
      return texts.map((text, i) => ({ ...applyHeads(heads, encoded[i], text), embedding: encoded[i].vector }));
    },
  };
}

/**
 * The heads are loaded (or trained on this embedder's vectors of the corpus) once per analyzer, one
 * per worker process; afterwards each batch costs exactly ONE embedding call, whatever its size (its long messages'
 * sentences go in the same call).
 */
export async function createAnalyzer(
  embedder: Embedder,
  /** `signal`: a shutdown, which ends a training or a wait for another process's within seconds. */
  opts: {
    db?: Db;
    cacheDir?: string;
    corpus?: Corpus;
    log?: Logger;
    signal?: AbortSignal;
    /** null: never the shipped heads (HEADS_SHIPPED=off); default: the embedder's file in data/heads/. */
    shippedFile?: string | null;
  } = {},
): Promise<Analyzer> {
  const { heads } = await loadOrTrainHeads({ embedder, ...opts });
  return analyzerWithHeads(embedder, heads);
}
