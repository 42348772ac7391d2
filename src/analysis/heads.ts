import { cueFeatures } from './cues.js';
import { lexiconScore } from './lexicon.js';
import type { LabelledText } from './corpus.js';
import { predict, seededRandom, shuffled, train, type LinearModel, type TrainOptions } from './linear.js';
import { INTENTIONS, TOPICS } from './taxonomy.js';

/**
 * Trained heads on the embedding (plus the domain cues of cues.ts): topics and intentions are
 * multi-label logistic regressions, polarity a softmax over three classes (the sentiment value is
 * its expectation: each class's probability times the corpus' mean sentiment of that class), churn its own logistic head (it drives churn risk and most alerting
 * segments). Each label's threshold is the one with the best cross-validated F1 on the training
 * corpus (churn: F2, recall first), never chosen on an evaluation set.
 *
 * Bump HEADS_VERSION whenever training or features change: it is part of the cache key.
 */
export const HEADS_VERSION = 1;

export const POLARITIES = ['negative', 'neutral', 'positive'] as const;

export interface LabelHead {
  labels: string[];
  model: LinearModel;
  thresholds: number[];
}

export interface Heads {
  version: number;
  embedder: string;
  dimensions: number;
  corpusHash: string;
  /** Standardisation of the feature vector (embedding, then cues). */
  mean: number[];
  scale: number[];
  topics: LabelHead;
  intentions: LabelHead;
  churn: LabelHead;
  polarity: LinearModel;
  /** Mean sentiment of the corpus' negative, neutral and positive messages. */
  sentimentMeans: number[];
  /** Cross-validated figures on the training corpus, kept for `npm run eval` and the logs. */
  crossValidation: {
    folds: number;
    topicF1: number;
    intentionF1: number;
    polarityAccuracy: number;
    churn: { precision: number; recall: number };
  };
}

export interface Prediction {
  sentiment: number;
  topics: string[];
  intentions: string[];
}

const MAX_LABELS = 3;
/** Weight of the lexicon score added to the expected sentiment (chosen by corpus CV: 0, 0.2, 0.4). */
const LEXICON_INTENSITY = 0.2;
/** Positive-example weight cap for rare labels, and the F-beta that picks churn's threshold. */
const LABEL_OPTIONS = { maxPositiveWeight: 2, churnBeta: 2, ensemble: 3 };
const FOLDS = 5;
const SEED = 20261124;

const TRAINING: Record<'labels' | 'polarity', Omit<TrainOptions, 'kind' | 'seed' | 'positiveWeight'>> = {
  labels: { epochs: 8, learningRate: 0.003, l2: 1e-3, batchSize: 32 },
  polarity: { epochs: 8, learningRate: 0.003, l2: 1e-3, batchSize: 32 },
};

export function featureRow(vector: number[], text: string): number[] {
  return [...vector, ...cueFeatures(text)];
}

function standardiser(rows: number[][]) {
  const d = rows[0].length;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const r of rows) for (let k = 0; k < d; k++) mean[k] += r[k] / rows.length;
  for (const r of rows) for (let k = 0; k < d; k++) scale[k] += (r[k] - mean[k]) ** 2 / rows.length;
  for (let k = 0; k < d; k++) scale[k] = 1 / (Math.sqrt(scale[k]) || 1);
  return { mean, scale };
}

const standardise = (row: number[], s: { mean: number[]; scale: number[] }) =>
  row.map((v, k) => (v - s.mean[k]) * s.scale[k]);

export function polarityOf(sentiment: number): (typeof POLARITIES)[number] {
  return sentiment <= -0.2 ? 'negative' : sentiment >= 0.2 ? 'positive' : 'neutral';
}

const multiHot = (labels: readonly string[], have: string[]) => labels.map((l) => (have.includes(l) ? 1 : 0));

/** Positive examples of a rare label weigh more (capped), so a 3% label is not simply never predicted. */
function positiveWeights(y: number[][]): number[] {
  return y[0].map((_, o) => {
    const pos = y.filter((r) => r[o] > 0.5).length;
    return Math.min(LABEL_OPTIONS.maxPositiveWeight, Math.max(1, Math.sqrt((y.length - pos) / Math.max(pos, 1))));
  });
}

/**
 * A few models trained on different shuffles, weights averaged: a linear model's average is one
 * linear model (no extra cost at prediction) with less of the noise of a single SGD run.
 */
async function averaged(fit: (seed: number) => Promise<LinearModel>): Promise<LinearModel> {
  const models: LinearModel[] = [];
  for (let k = 0; k < LABEL_OPTIONS.ensemble; k++) models.push(await fit(SEED + k));
  const mean = (pick: (m: LinearModel) => number[]) =>
    pick(models[0]).map((_, i) => models.reduce((sum, m) => sum + pick(m)[i], 0) / models.length);
  return { ...models[0], weights: mean((m) => m.weights), bias: mean((m) => m.bias) };
}

async function fitLabels(x: number[][], y: number[][]) {
  const positiveWeight = positiveWeights(y);
  return averaged((seed) => train(x, y, { kind: 'sigmoid', ...TRAINING.labels, seed, positiveWeight }));
}

function bestThreshold(scores: number[], gold: number[], beta: number): number {
  let best = 0.5;
  let bestF = -1;
  for (let t = 0.05; t <= 0.951; t += 0.025) {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    scores.forEach((s, i) => {
      if (s >= t && gold[i]) tp++;
      else if (s >= t) fp++;
      else if (gold[i]) fn++;
    });
    const p = tp + fp ? tp / (tp + fp) : 0;
    const r = tp + fn ? tp / (tp + fn) : 0;
    const f = p + r ? ((1 + beta ** 2) * p * r) / (beta ** 2 * p + r) : 0;
    if (f > bestF + 1e-9) [best, bestF] = [Math.round(t * 1000) / 1000, f];
  }
  return best;
}

function microF1(gold: number[][], pred: number[][]): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((g, i) => g.forEach((v, o) => (v && pred[i][o] ? tp++ : pred[i][o] ? fp++ : v ? fn++ : 0)));
  return tp ? (2 * tp) / (2 * tp + fp + fn) : 0;
}

/** Keeps labels at or above their threshold, the MAX_LABELS furthest above it. */
function pickLabels(head: LabelHead, probs: number[]): string[] {
  return probs
    .map((p, o) => ({ label: head.labels[o], margin: p - head.thresholds[o] }))
    .filter((c) => c.margin >= 0)
    .sort((a, b) => b.margin - a.margin)
    .slice(0, MAX_LABELS)
    .map((c) => c.label);
}

export function applyHeads(heads: Heads, vector: number[], text: string): Prediction {
  const x = standardise(featureRow(vector, text), heads);
  const topics = pickLabels(heads.topics, predict(heads.topics.model, x));
  const intentions = pickLabels(heads.intentions, predict(heads.intentions.model, x)).filter((l) => l !== 'churn');
  if (pickLabels(heads.churn, predict(heads.churn.model, x)).length > 0) intentions.unshift('churn');
  // The class comes from the polarity head; the value is its expectation (corpus CV: MAE 0.176,
  // against 0.215 for a least-squares head on the same features), moved by the lexicon's intensity
  // ("terrible", "love": MAE 0.182 -> 0.179, and strong words reach past the class means of about
  // ±0.5), then kept inside that class. See docs/analysis.md.
  const p = predict(heads.polarity, x);
  const cls = POLARITIES[p.indexOf(Math.max(...p))];
  const expected = p.reduce((sum, prob, c) => sum + prob * heads.sentimentMeans[c], 0);
  const raw = Math.max(-1, Math.min(1, expected + LEXICON_INTENSITY * lexiconScore(text).score));
  const sentiment =
    cls === 'negative'
      ? Math.min(raw, -0.2)
      : cls === 'positive'
        ? Math.max(raw, 0.2)
        : Math.max(-0.19, Math.min(0.19, raw));
  return { sentiment: Math.round(sentiment * 1000) / 1000 || 0, topics, intentions: intentions.slice(0, MAX_LABELS) };
}

interface Prepared {
  x: number[][];
  topics: number[][];
  intentions: number[][];
  churn: number[][];
  polarity: number[][];
}

function prepare(items: LabelledText[], rows: number[][]): Prepared {
  const others = INTENTIONS.filter((l) => l !== 'churn');
  return {
    x: rows,
    topics: items.map((it) => multiHot(TOPICS, it.topics)),
    intentions: items.map((it) => multiHot(others, it.intentions)),
    churn: items.map((it) => [it.intentions.includes('churn') ? 1 : 0]),
    polarity: items.map((it) => POLARITIES.map((p) => (polarityOf(it.sentiment) === p ? 1 : 0))),
  };
}

async function fitAll(d: Prepared) {
  return {
    topics: await fitLabels(d.x, d.topics),
    intentions: await fitLabels(d.x, d.intentions),
    churn: await fitLabels(d.x, d.churn),
    polarity: await averaged((seed) => train(d.x, d.polarity, { kind: 'softmax', ...TRAINING.polarity, seed })),
  };
}

/**
 * Trains every head on the corpus' vectors (from the embedder that will use them). Deterministic:
 * the same vectors and corpus give the same heads. Thresholds come from FOLDS-fold out-of-fold
 * predictions, then the heads are fitted once more on everything.
 */
export async function trainHeads(input: {
  embedder: string;
  corpusHash: string;
  items: LabelledText[];
  vectors: number[][];
}): Promise<Heads> {
  const raw = input.items.map((it, i) => featureRow(input.vectors[i], it.text));
  const std = standardiser(raw);
  const all = prepare(
    input.items,
    raw.map((r) => standardise(r, std)),
  );
  const n = input.items.length;
  const trainingSet = (idx: number[]): Prepared =>
    Object.fromEntries(
      Object.entries(all).map(([k, rows]) => [k, idx.map((i) => (rows as number[][])[i])]),
    ) as unknown as Prepared;

  const fold = new Array<number>(n);
  shuffled(n, seededRandom(SEED)).forEach((i, k) => (fold[i] = k % FOLDS));
  const oof = {
    topics: [] as number[][],
    intentions: [] as number[][],
    churn: [] as number[][],
    polarity: [] as number[][],
  };
  for (let f = 0; f < FOLDS; f++) {
    const trainIdx = [...Array(n).keys()].filter((i) => fold[i] !== f);
    const m = await fitAll(trainingSet(trainIdx));
    for (let i = 0; i < n; i++) {
      if (fold[i] !== f) continue;
      oof.topics[i] = predict(m.topics, all.x[i]);
      oof.intentions[i] = predict(m.intentions, all.x[i]);
      oof.churn[i] = predict(m.churn, all.x[i]);
      oof.polarity[i] = predict(m.polarity, all.x[i]);
    }
  }
  const thresholds = (scores: number[][], gold: number[][], beta: number) =>
    gold[0].map((_, o) =>
      bestThreshold(
        scores.map((s) => s[o]),
        gold.map((g) => g[o]),
        beta,
      ),
    );
  const topicT = thresholds(oof.topics, all.topics, 1);
  const intentT = thresholds(oof.intentions, all.intentions, 1);
  const churnT = thresholds(oof.churn, all.churn, LABEL_OPTIONS.churnBeta);

  const cut = (scores: number[][], t: number[]) => scores.map((s) => s.map((v, o) => (v >= t[o] ? 1 : 0)));
  const churnPred = cut(oof.churn, churnT).map((r) => r[0]);
  const churnTp = churnPred.filter((p, i) => p && all.churn[i][0]).length;
  const churnPos = all.churn.filter((r) => r[0]).length;
  const crossValidation = {
    folds: FOLDS,
    topicF1: microF1(all.topics, cut(oof.topics, topicT)),
    intentionF1: microF1(
      all.intentions.map((r, i) => [...r, all.churn[i][0]]),
      cut(oof.intentions, intentT).map((r, i) => [...r, churnPred[i]]),
    ),
    polarityAccuracy: oof.polarity.filter((p, i) => all.polarity[i][p.indexOf(Math.max(...p))] === 1).length / n,
    churn: {
      precision: churnTp / Math.max(1, churnPred.filter(Boolean).length),
      recall: churnTp / Math.max(1, churnPos),
    },
  };

  const m = await fitAll(all);
  return {
    version: HEADS_VERSION,
    embedder: input.embedder,
    dimensions: input.vectors[0]?.length ?? 0,
    corpusHash: input.corpusHash,
    mean: std.mean,
    scale: std.scale,
    topics: { labels: [...TOPICS], model: m.topics, thresholds: topicT },
    intentions: { labels: INTENTIONS.filter((l) => l !== 'churn'), model: m.intentions, thresholds: intentT },
    churn: { labels: ['churn'], model: m.churn, thresholds: churnT },
    polarity: m.polarity,
    sentimentMeans: POLARITIES.map((p) => {
      const of = input.items.filter((it) => polarityOf(it.sentiment) === p);
      return of.length ? of.reduce((sum, it) => sum + it.sentiment, 0) / of.length : 0;
    }),
    crossValidation,
  };
}
