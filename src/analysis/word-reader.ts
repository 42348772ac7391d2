import type { LabelledText } from './corpus.js';
import type { Predicted } from './eval.js';
import { polarity } from './eval.js';
import {
  DEFAULT_SPARSE_OPTIONS,
  packSparse,
  predictSparse,
  trainSparse,
  unpackSparse,
  type PackedSparse,
  type SparseModel,
} from './sparse-linear.js';
import { INTENTIONS, TOPICS } from './taxonomy.js';
import { wordFeatures, type SparseRow } from './word-features.js';

/**
 * The second reader (issue 35): sparse logistic models over a message's words, word pairs and
 * characters (word-features.ts), one per task: polarity as a softmax over three classes, topics and
 * intentions (churn among them) as independent sigmoids. It sees what the sentence embedding blurs
 * (negation, word order, the exact word), and costs microseconds per message.
 */
export interface WordReader {
  polarity: SparseModel;
  topics: SparseModel;
  intentions: SparseModel;
  /** Mean sentiment of the training messages of each polarity: the value a class stands for. */
  sentimentMeans: number[];
}

const POLARITY_CLASSES = ['negative', 'neutral', 'positive'] as const;

/** Examples that teach polarity only: their word rows and classes. */
export interface PolarityExamples {
  rows: SparseRow[];
  classes: (typeof POLARITY_CLASSES)[number][];
}
const MAX_LABELS = 3;

export async function trainWordReader(
  items: LabelledText[],
  rows = items.map((it) => wordFeatures(it.text)),
  /** Polarity-only examples beside the items (heads.ts sarcasmSetPolarity): rows and their class. */
  extraPolarity: PolarityExamples = { rows: [], classes: [] },
) {
  const classOf = (it: LabelledText) => POLARITY_CLASSES.indexOf(polarity(it.sentiment));
  const multi = (labels: readonly string[], pick: (it: LabelledText) => string[]) =>
    items.map((it) => labels.map((l) => (pick(it).includes(l) ? 1 : 0)));
  const sentimentMeans = POLARITY_CLASSES.map((_, c) => {
    const members = items.filter((it) => classOf(it) === c);
    return members.length ? members.reduce((s, it) => s + it.sentiment, 0) / members.length : 0;
  });
  return {
    polarity: await trainWordPolarity(items, rows, extraPolarity),
    topics: await trainSparse(
      rows,
      multi(TOPICS, (it) => it.topics),
      { ...DEFAULT_SPARSE_OPTIONS, kind: 'sigmoid' },
    ),
    intentions: await trainSparse(
      rows,
      multi(INTENTIONS, (it) => it.intentions),
      { ...DEFAULT_SPARSE_OPTIONS, kind: 'sigmoid' },
    ),
    sentimentMeans,
  } satisfies WordReader;
}

/**
 * The reader's polarity model alone: leave-one-writer-out (sarcasm-writers.ts) trains it again
 * without one writer's lines, while topics and intentions, which never see those lines, are kept.
 */
export async function trainWordPolarity(
  items: LabelledText[],
  rows: SparseRow[],
  extraPolarity: PolarityExamples = { rows: [], classes: [] },
): Promise<SparseModel> {
  const classes = [...items.map((it) => polarity(it.sentiment)), ...extraPolarity.classes];
  const oneHot = classes.map((k) => POLARITY_CLASSES.map((c) => (k === c ? 1 : 0)));
  return trainSparse([...rows, ...extraPolarity.rows], oneHot, { ...DEFAULT_SPARSE_OPTIONS, kind: 'softmax' });
}

/** A polarity model packed as the stored reader's (packWordReader). */
export const packWordPolarity = (m: SparseModel) => packSparse(m, STORED_MIN_WEIGHT);

/** The labels over 0.5 (at most three, most probable first). */
function picked(labels: readonly string[], p: number[]): string[] {
  return labels
    .map((label, i) => ({ label, p: p[i] }))
    .filter((x) => x.p >= 0.5)
    .sort((a, b) => b.p - a.p)
    .slice(0, MAX_LABELS)
    .map((x) => x.label);
}

/** The reader's own answer for a message: the mean sentiment of its most probable class. */
export function applyWordReader(reader: WordReader, text: string, row: SparseRow = wordFeatures(text)): Predicted {
  const p = wordProbabilities(reader, row);
  return {
    sentiment: reader.sentimentMeans[p.polarity.indexOf(Math.max(...p.polarity))],
    topics: picked(TOPICS, p.topics),
    intentions: picked(INTENTIONS, p.intentions),
  };
}

/** The reader's probabilities for one message: polarity's three classes, each topic, each intention (churn among them). */
export interface WordProbabilities {
  polarity: number[];
  topics: number[];
  intentions: number[];
}

export function wordProbabilities(reader: Pick<WordReader, 'polarity' | 'topics' | 'intentions'>, row: SparseRow) {
  return {
    polarity: predictSparse(reader.polarity, row),
    topics: predictSparse(reader.topics, row),
    intentions: predictSparse(reader.intentions, row),
  } satisfies WordProbabilities;
}

/** The reader as the heads store it (heads.ts): its three models packed. */
export interface PackedWordReader {
  polarity: PackedSparse;
  topics: PackedSparse;
  intentions: PackedSparse;
}

/**
 * Weights below this are dropped when the reader is stored: they move no probability by more than
 * a rounding error over a message's few hundred features, and the stored heads shrink severalfold.
 */
const STORED_MIN_WEIGHT = 1e-3;

export const packWordReader = (r: WordReader): PackedWordReader => ({
  polarity: packWordPolarity(r.polarity),
  topics: packSparse(r.topics, STORED_MIN_WEIGHT),
  intentions: packSparse(r.intentions, STORED_MIN_WEIGHT),
});

export const unpackWordReader = (p: PackedWordReader) => ({
  polarity: unpackSparse(p.polarity),
  topics: unpackSparse(p.topics),
  intentions: unpackSparse(p.intentions),
});
