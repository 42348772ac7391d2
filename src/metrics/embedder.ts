import type { Embedder } from '../analysis/embedder.js';
import { embedderCallTexts, embedderCalls, embedderDuration, embedderQueue } from './registry.js';

/**
 * An embedder that reports its calls: count by result, texts per call, time to the vectors
 * (waiting for a model thread included) and the calls waiting or running. `provider` is `local`
 * or `openai`, the part of the embedder's name before the colon.
 */
export function instrumentEmbedder(embedder: Embedder): Embedder {
  const provider = embedder.name.split(':')[0];
  return {
    name: embedder.name,
    dimensions: embedder.dimensions,
    async embed(texts, lane) {
      embedderQueue.inc({ provider });
      const end = embedderDuration.startTimer({ provider });
      let result = 'error';
      try {
        const vectors = await embedder.embed(texts, lane);
        result = 'ok';
        return vectors;
      } finally {
        end();
        embedderQueue.dec({ provider });
        embedderCalls.inc({ provider, result });
        embedderCallTexts.observe({ provider }, texts.length);
      }
    },
  };
}
