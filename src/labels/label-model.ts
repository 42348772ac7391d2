import { predict, seededRandom, shuffled, train } from '../analysis/linear.js';
import { wordFeatures, type SparseRow } from '../analysis/word-features.js';

/**
 * A custom label's classifier: logistic regression over the sentence vector the analysis already
 * computes and the message's words (the word reader's hashed unigrams and bigrams, negations
 * marked), restricted to the words its examples use. Taught from a handful of examples, so the
 * choices are few and measured (docs/labels.md): the words add about two points of F1 over the
 * vector alone on our own held-out label set, the description as an extra example measured no
 * better, and the decision threshold is chosen on out-of-fold scores of the examples themselves,
 * never below THRESHOLD_FLOOR.
 */

export interface LabelExample {
  text: string;
  match: boolean;
}

/** What a trained version stores (labels.model): enough to score a message without the examples. */
export interface LabelModel {
  /** The embedder the vectors came from: a model is meaningless for another one's vectors. */
  embedder: string;
  dimensions: number;
  vectorWeights: number[];
  /** Word feature indices (word-features.ts) and their weights: the examples' vocabulary. */
  wordIndex: number[];
  wordWeights: number[];
  bias: number;
  /** Score (a probability) at or above which a text matches. */
  threshold: number;
}

/** Cross-validated quality of a version, on its own examples (out-of-fold scores). */
export interface LabelQuality {
  precision: number;
  recall: number;
  f1: number;
  folds: number;
  examples: number;
  matching: number;
  /** Set when the figures rest on too few examples to mean much. */
  warning: string | null;
}

/** Below this many examples of either side the quality figures are rough: said with them. */
export const QUALITY_WARNING_BELOW = 20;
const MAX_FOLDS = 5;
/**
 * The lowest threshold a label gets. A few examples hold two or three near misses at most, so their
 * out-of-fold scores place the threshold where it separates those, and texts that share a label's
 * words without its meaning pass it: on data/labels-eval/dev.jsonl the cross-validated threshold
 * alone gave F1 0.781 (precision 0.66), with this floor 0.813 (`npm run label-eval`).
 */
export const THRESHOLD_FLOOR = 0.6;
/** Weight of the bag of words beside the unit sentence vector (both have length 1). */
const WORDS_WEIGHT = 1;
const TRAIN = { kind: 'sigmoid' as const, learningRate: 0.02, l2: 1e-3, batchSize: 8, seed: 47 };
/**
 * Passes over the examples: 150 for up to 20 (what the settings were chosen with), then fewer as
 * they grow, about 3,000 example visits in all: 200 examples trained in 12.9 s with 150 passes
 * (`npm run bench -- --only=labels`), since every pass also walks the examples' whole vocabulary.
 */
export const epochsFor = (n: number) => Math.min(150, Math.max(15, Math.round(3_000 / n)));

/** The bag of words of a text over a vocabulary, unit length, as a dense row. */
function wordRow(text: string, vocabulary: Map<number, number>): number[] {
  const row = new Array<number>(vocabulary.size).fill(0);
  const { index, value } = wordFeatures(text);
  index.forEach((k, j) => {
    const at = vocabulary.get(k);
    if (at !== undefined) row[at] = value[j];
  });
  // A loop, not Math.hypot(...row): a spread of a long row overflows the call stack.
  let sum = 0;
  for (const v of row) sum += v * v;
  const norm = Math.sqrt(sum) || 1;
  return row.map((v) => (WORDS_WEIGHT * v) / norm);
}

/**
 * The features a label learns from: its examples' word features (words, word pairs, character
 * n-grams), the MAX_VOCABULARY most shared ones (by how many examples have them, then first seen).
 * Bounded because the rows are dense: 500 examples of 200 random characters made 124,000 features,
 * 1.5 GB and 69 s of training, and the event loop stalled for seconds at a time.
 */
export const MAX_VOCABULARY = 4_000;
function vocabularyOf(texts: string[]): Map<number, number> {
  const shared = new Map<number, number>();
  for (const t of texts) for (const k of wordFeatures(t).index) shared.set(k, (shared.get(k) ?? 0) + 1);
  const kept = [...shared.entries()]
    .map(([k, n], first) => ({ k, n, first }))
    .sort((a, b) => b.n - a.n || a.first - b.first)
    .slice(0, MAX_VOCABULARY)
    .sort((a, b) => a.first - b.first);
  const vocabulary = new Map<number, number>();
  for (const { k } of kept) vocabulary.set(k, vocabulary.size);
  return vocabulary;
}

interface Fitted {
  score(vector: number[], text: string): number;
  model(threshold: number): Omit<LabelModel, 'embedder'>;
}

async function fit(vectors: number[][], examples: LabelExample[]): Promise<Fitted> {
  const vocabulary = vocabularyOf(examples.map((e) => e.text));
  const rows = examples.map((e, i) => [...vectors[i], ...wordRow(e.text, vocabulary)]);
  const m = await train(
    rows,
    examples.map((e) => [e.match ? 1 : 0]),
    { ...TRAIN, epochs: epochsFor(examples.length) },
  );
  const dims = vectors[0].length;
  const wordIndex = [...vocabulary.keys()];
  const weights = Array.from(m.weights);
  return {
    score: (vector, text) => predict(m, [...vector, ...wordRow(text, vocabulary)])[0],
    model: (threshold) => ({
      dimensions: dims,
      vectorWeights: weights.slice(0, dims),
      wordIndex,
      wordWeights: weights.slice(dims),
      bias: m.bias[0],
      threshold,
    }),
  };
}

/** Stratified folds: each side's examples dealt round-robin after a seeded shuffle. */
function foldsOf(examples: LabelExample[], k: number): number[] {
  const fold = new Array<number>(examples.length);
  const random = seededRandom(TRAIN.seed);
  for (const side of [true, false]) {
    const idx = examples.map((e, i) => (e.match === side ? i : -1)).filter((i) => i >= 0);
    shuffled(idx.length, random).forEach((j, n) => (fold[idx[j]] = n % k));
  }
  return fold;
}

function counts(scores: number[], truth: boolean[], threshold: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  scores.forEach((s, i) => {
    if (s >= threshold && truth[i]) tp++;
    else if (s >= threshold) fp++;
    else if (truth[i]) fn++;
  });
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/**
 * The threshold with the best out-of-fold F1: candidates halfway between neighbouring scores;
 * among equals, the one nearest 0.5 (the fit's own decision), so a few examples cannot drag it to
 * an edge for nothing.
 */
export function bestThreshold(scores: number[], truth: boolean[]): number {
  const sorted = [...new Set(scores)].sort((a, b) => a - b);
  const candidates = [0.5, ...sorted.slice(1).map((s, i) => (s + sorted[i]) / 2)];
  let best = 0.5;
  let bestF1 = counts(scores, truth, 0.5).f1;
  for (const t of candidates) {
    const f = counts(scores, truth, t).f1;
    if (f > bestF1 + 1e-9 || (Math.abs(f - bestF1) <= 1e-9 && Math.abs(t - 0.5) < Math.abs(best - 0.5))) {
      best = t;
      bestF1 = f;
    }
  }
  return best;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Trains a version: out-of-fold scores (stratified k-fold, k up to 5 and at most the smaller
 * side's count) choose the threshold and measure the quality; the model is then fitted on every
 * example. `vectors[i]` is examples[i]'s sentence vector from `embedder`.
 */
export async function trainLabel(
  embedder: string,
  vectors: number[][],
  examples: LabelExample[],
): Promise<{ model: LabelModel; quality: LabelQuality }> {
  const matching = examples.filter((e) => e.match).length;
  const k = Math.min(MAX_FOLDS, matching, examples.length - matching);
  if (k < 2) throw new Error('a label needs at least two matching and two non-matching examples');
  const fold = foldsOf(examples, k);
  const oof = new Array<number>(examples.length).fill(0);
  for (let f = 0; f < k; f++) {
    const inFold = examples.map((_, i) => i).filter((i) => fold[i] !== f);
    const fitted = await fit(
      inFold.map((i) => vectors[i]),
      inFold.map((i) => examples[i]),
    );
    examples.forEach((e, i) => {
      if (fold[i] === f) oof[i] = fitted.score(vectors[i], e.text);
    });
  }
  const truth = examples.map((e) => e.match);
  const threshold = Math.max(THRESHOLD_FLOOR, bestThreshold(oof, truth));
  const q = counts(oof, truth, threshold);
  const fewest = Math.min(matching, examples.length - matching);
  const full = await fit(vectors, examples);
  return {
    model: { embedder, ...full.model(threshold) },
    quality: {
      precision: round3(q.precision),
      recall: round3(q.recall),
      f1: round3(q.f1),
      folds: k,
      examples: examples.length,
      matching,
      warning:
        fewest < QUALITY_WARNING_BELOW
          ? `measured on ${fewest} ${fewest === matching ? 'matching' : 'non-matching'} examples: ` +
            `rough until each side has ${QUALITY_WARNING_BELOW}`
          : null,
    },
  };
}

/**
 * A model ready to score messages: its vocabulary indexed once. Score with the message's sentence
 * vector and its word features (wordFeatures(text), computed once per message for all labels);
 * the score is a probability, compared with model.threshold.
 */
export function labelScorer(model: LabelModel): (vector: number[], words: SparseRow) => number {
  const at = new Map(model.wordIndex.map((w, j) => [w, j]));
  return (vector, words) => {
    // Another embedder's vector (a provider change) means nothing to this model.
    if (vector.length !== model.dimensions) return 0;
    let z = model.bias;
    for (let k = 0; k < vector.length; k++) z += model.vectorWeights[k] * vector[k];
    let norm = 0;
    let dot = 0;
    words.index.forEach((w, j) => {
      const p = at.get(w);
      if (p === undefined) return;
      norm += words.value[j] * words.value[j];
      dot += model.wordWeights[p] * words.value[j];
    });
    if (norm > 0) z += (WORDS_WEIGHT * dot) / Math.sqrt(norm);
    return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
  };
}
