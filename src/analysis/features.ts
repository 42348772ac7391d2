import { cueFeatures, CUE_NAMES } from './cues.js';
import type { Embedder, Lane } from './embedder.js';
import { sentencesOf } from './sentences.js';

/** A message as the heads read it: its embedding and its pieces' embeddings ([] when read whole). */
export interface Encoded {
  vector: number[];
  pieces: number[][];
  /** The pieces' texts, in the same order. */
  pieceTexts: string[];
}

/**
 * Embeds messages and their pieces (sentences.ts) in ONE call to the embedder: a batch still costs
 * one call whatever its size, and the pieces are shared out with the messages by the embedder's own
 * batching. The cost is the extra texts: measured in docs/analysis.md.
 */
export async function encodeTexts(embedder: Embedder, texts: string[], lane?: Lane): Promise<Encoded[]> {
  const pieces = texts.map(sentencesOf);
  const vectors = await embedder.embed([...texts, ...pieces.flat()], lane);
  let next = texts.length;
  return texts.map((_, i) => ({
    vector: vectors[i],
    pieces: pieces[i].map(() => vectors[next++]),
    pieceTexts: pieces[i],
  }));
}

/** How the embedding part of a feature row is built. */
export type Pooling = 'whole' | 'whole+mean' | 'whole+max' | 'whole+mean+max';
export const POOLINGS: Pooling[] = ['whole', 'whole+mean', 'whole+max', 'whole+mean+max'];

export function featureCount(dimensions: number, pooling: Pooling): number {
  return dimensions * pooling.split('+').length + CUE_NAMES.length;
}

/**
 * The feature row: the whole-message embedding, then (pooled) the mean and the per-dimension max of
 * its pieces' embeddings (the whole message again when it is read whole, so short and long messages
 * share one layout), then the domain cues.
 */
export function featureRow(enc: Encoded, text: string, pooling: Pooling): number[] {
  const v = enc.vector;
  if (pooling === 'whole') return [...v, ...cueFeatures(text)];
  const pieces = enc.pieces.length > 0 ? enc.pieces : [v];
  const d = v.length;
  const mean = new Array<number>(d).fill(0);
  const max = new Array<number>(d).fill(-Infinity);
  for (const p of pieces)
    for (let k = 0; k < d; k++) {
      mean[k] += p[k] / pieces.length;
      if (p[k] > max[k]) max[k] = p[k];
    }
  return [
    ...v,
    ...(pooling.includes('mean') ? mean : []),
    ...(pooling.includes('max') ? max : []),
    ...cueFeatures(text),
  ];
}
