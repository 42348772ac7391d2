import { cueFeatures, CUE_NAMES } from './cues.js';
import { normalizeText } from './normalize.js';
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
 * Embeds messages in ONE call to the embedder: a short message whole, a long one by its pieces
 * (sentences.ts), whose normalised mean is then its vector. So a batch still costs one call, and a
 * long message costs about what it cost whole (its pieces hold the same words, in shorter and
 * cheaper sequences). Embedding the long message whole as well was measured: 0.3 points better on
 * cross-validation, within noise; with the earlier cut (from 12 words) it ran at about half the
 * messages per second (commit 4e8a4f3). `pieces: false` embeds every message whole: one text per
 * message, for heads that do not read pieces (HeadsOptions.stackPieces).
 */
export async function encodeTexts(
  embedder: Embedder,
  texts: string[],
  lane: Lane | undefined,
  /** Whether long messages are read by their pieces: the heads' option (HeadsOptions.stackPieces), always given. */
  opts: { pieces: boolean },
): Promise<Encoded[]> {
  // Every reader reads the normalised text (normalize.ts), the embedder too.
  const normalised = texts.map(normalizeText);
  const pieces = normalised.map((t) => (opts.pieces ? sentencesOf(t) : []));
  const whole = normalised.filter((_, i) => pieces[i].length === 0);
  const vectors = await embedder.embed([...whole, ...pieces.flat()], lane);
  let nextWhole = 0;
  let nextPiece = whole.length;
  return texts.map((_, i) => {
    if (pieces[i].length === 0) return { vector: vectors[nextWhole++], pieces: [], pieceTexts: [] };
    const own = pieces[i].map(() => vectors[nextPiece++]);
    return { vector: meanUnit(own), pieces: own, pieceTexts: pieces[i] };
  });
}

/** The normalised mean of unit vectors: a long message's vector, from its pieces'. */
function meanUnit(vs: number[][]): number[] {
  const sum = vs[0].map((_, k) => vs.reduce((s, v) => s + v[k], 0));
  const norm = Math.hypot(...sum) || 1;
  return sum.map((x) => x / norm);
}

export const FEATURE_COUNT_BESIDE_VECTOR = CUE_NAMES.length;

/**
 * The feature row: the message's vector, then the domain cues. Pooled layouts (the pieces' mean
 * and per-dimension max beside the vector) were measured worse and removed (docs/analysis.md).
 */
export function featureRow(vector: number[], text: string): number[] {
  return [...vector, ...cueFeatures(normalizeText(text))];
}
