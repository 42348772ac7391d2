import type { LabelledText } from './corpus.js';
import { featureRow, type Encoded } from './features.js';
import { lexiconScore } from './lexicon.js';
import { predict, seededRandom, shuffled, train, type LinearModel, type TrainOptions } from './linear.js';
import { INTENTIONS, TOPICS } from './taxonomy.js';

/**
 * Trained heads on the features of features.ts (the message's embedding and the domain cues):
 * topics and intentions are multi-label logistic regressions, polarity a softmax over three
 * classes, churn its own logistic head (it drives churn risk and most alerting segments), the
 * sentiment value the polarity head's expectation. A long message's sentences are read by the same
 * label heads, and a second stage per label weighs them against the message (stacking).
 * HeadsOptions holds the choices `npm run eval` can vary; variants measured worse and removed are
 * in docs/analysis.md.
 *
 * Everything that is chosen is chosen on out-of-fold predictions of the training corpus, never on
 * an evaluation set: each label's probability is calibrated (Platt scaling) and its threshold is
 * the one with the best F1 (churn: F1.5, recall weighs more); the polarity classes get calibrated
 * offsets.
 * `npm run eval` trains these heads inside each outer fold, so the thresholds are chosen by nested
 * cross-validation there.
 *
 * Bump HEADS_VERSION whenever training or features change: it is part of the cache key.
 */
export const HEADS_VERSION = 6;

/** The choices `npm run eval` compares by cross-validation; the defaults are the chosen ones. */
export interface HeadsOptions {
  /** Platt scaling of each label and calibrated class offsets for polarity. */
  calibrate: boolean;
  /**
   * Sentence-level reading by stacking: each label head also reads a long message's pieces, and a
   * small second stage weighs the whole message's probability against the pieces' max and mean.
   */
  stackPieces: boolean;
  /** The F-beta that picks churn's threshold (beta > 1 favours recall). */
  churnBeta: number;
  /** Passes over the corpus, and the L2 weight, of every head's training. */
  epochs: number;
  l2: number;
}

export const DEFAULT_HEADS_OPTIONS: HeadsOptions = {
  calibrate: true,
  stackPieces: true,
  churnBeta: 1.5,
  epochs: 8,
  l2: 1e-3,
};

export const POLARITIES = ['negative', 'neutral', 'positive'] as const;

/** sigmoid(a * logit(p) + b) per output: Platt scaling fitted on out-of-fold probabilities. */
export interface Calibration {
  a: number[];
  b: number[];
}

export interface LabelHead {
  labels: string[];
  model: LinearModel;
  calibration: Calibration;
  /**
   * Per label: weights of the logits of [the whole message, the pieces' max, the pieces' mean]
   * (calibrated probabilities), then a bias. Absent: the whole message's probability is used alone.
   */
  stack?: number[][];
  /** On the final probability. */
  thresholds: number[];
}

export interface Heads {
  version: number;
  embedder: string;
  dimensions: number;
  options: HeadsOptions;
  corpusHash: string;
  /** Standardisation of the feature row. */
  mean: number[];
  scale: number[];
  topics: LabelHead;
  intentions: LabelHead;
  churn: LabelHead;
  polarity: {
    model: LinearModel;
    /** Added to the log-probabilities before the class is picked (chosen on out-of-fold accuracy). */
    offsets: number[];
    /** Softmax temperature of the offset log-probabilities (chosen on out-of-fold log-loss). */
    temperature: number;
  };
  sentiment: {
    /** Mean sentiment of the corpus' negative, neutral and positive messages. */
    means: number[];
  };
  /**
   * Out-of-fold figures on the training corpus, kept for the logs. Optimistic: calibration,
   * stacking and thresholds are fitted on the same out-of-fold rows they are scored on, over
   * INNER_REPEATS repeats. The honest figures are `npm run eval`'s (nested).
   */
  crossValidation: {
    folds: number;
    topicF1: number;
    intentionF1: number;
    polarityAccuracy: number;
    sentimentMae: number;
    churn: { precision: number; recall: number };
  };
}

export interface Prediction {
  sentiment: number;
  topics: string[];
  intentions: string[];
}

const MAX_LABELS = 3;
/** Weight of the lexicon score added to the expected sentiment (expectation mode only). */
const LEXICON_INTENSITY = 0.2;
/** Positive-example weight cap for rare labels, and the runs averaged in the final fit. */
const LABEL_OPTIONS = { maxPositiveWeight: 2, ensemble: 3 };
const FOLDS = 5;
/** Cross-validations (on different folds) whose out-of-fold predictions choose calibration and thresholds. */
const INNER_REPEATS = 2;
const SEED = 20261124;

const TRAINING = (o: HeadsOptions): Omit<TrainOptions, 'kind' | 'seed' | 'positiveWeight'> => ({
  epochs: o.epochs,
  learningRate: 0.003,
  l2: o.l2,
  batchSize: 32,
});

function standardiser(rows: number[][]) {
  const d = rows[0].length;
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const r of rows) for (let k = 0; k < d; k++) mean[k] += r[k] / rows.length;
  for (const r of rows) for (let k = 0; k < d; k++) scale[k] += (r[k] - mean[k]) ** 2 / rows.length;
  for (let k = 0; k < d; k++) scale[k] = 1 / (Math.sqrt(scale[k]) || 1);
  return { mean, scale };
}

const standardise = (row: number[], s: { mean: number[]; scale: number[] }) => {
  const out = new Float64Array(row.length);
  for (let k = 0; k < row.length; k++) out[k] = (row[k] - s.mean[k]) * s.scale[k];
  return out;
};

function polarityOf(sentiment: number): (typeof POLARITIES)[number] {
  return sentiment <= -0.2 ? 'negative' : sentiment >= 0.2 ? 'positive' : 'neutral';
}

const multiHot = (labels: readonly string[], have: string[]) => labels.map((l) => (have.includes(l) ? 1 : 0));
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};

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
async function averaged(runs: number, fit: (seed: number) => Promise<LinearModel>): Promise<LinearModel> {
  const models: LinearModel[] = [];
  for (let k = 0; k < runs; k++) models.push(await fit(SEED + k));
  const mean = (pick: (m: LinearModel) => number[]) =>
    pick(models[0]).map((_, i) => models.reduce((sum, m) => sum + pick(m)[i], 0) / models.length);
  return { ...models[0], weights: mean((m) => m.weights), bias: mean((m) => m.bias) };
}

/**
 * Logistic regression on a few features by Newton's method (a tiny L2 keeps it finite when the
 * classes separate): Platt scaling is the one-feature case, the pieces' stage the three-feature one.
 * Returns the weights, then the bias.
 */
function logisticFit(rows: number[][], gold: number[], l2 = 1e-3): number[] {
  const k = rows[0].length + 1;
  const w = new Array<number>(k).fill(0);
  w[0] = 1;
  for (let it = 0; it < 50; it++) {
    const g = new Array<number>(k).fill(0);
    const h = Array.from({ length: k }, (_, a) =>
      Array.from({ length: k }, (_, b) => (a === b ? l2 * rows.length : 0)),
    );
    rows.forEach((r, i) => {
      const x = [...r, 1];
      const p = sigmoid(x.reduce((sum, v, c) => sum + v * w[c], 0));
      for (let a = 0; a < k; a++) {
        g[a] += (p - gold[i]) * x[a];
        for (let b = 0; b < k; b++) h[a][b] += p * (1 - p) * x[a] * x[b];
      }
    });
    for (let a = 0; a < k - 1; a++) g[a] += l2 * rows.length * w[a];
    const step = solve(h, g);
    if (!step) break;
    let moved = 0;
    for (let a = 0; a < k; a++) {
      w[a] -= step[a];
      moved += Math.abs(step[a]);
    }
    if (moved < 1e-7) break;
  }
  return w.every(Number.isFinite) ? w : [1, ...new Array<number>(k - 2).fill(0), 0];
}

/** Gaussian elimination with partial pivoting; undefined when singular. */
function solve(a: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-12) return undefined;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

function plattFit(scores: number[], gold: number[]): { a: number; b: number } {
  const [a, b] = logisticFit(
    scores.map((s) => [logit(s)]),
    gold,
  );
  return a > 0 ? { a, b } : { a: 1, b: 0 };
}

const calibrated = (c: Calibration, probs: number[]) => probs.map((p, o) => sigmoid(c.a[o] * logit(p) + c.b[o]));

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

/** A label head's final probabilities: calibrated, then weighed against the pieces' (stacked heads). */
function labelProbs(head: LabelHead, x: ArrayLike<number>, pieces: ArrayLike<number>[]): number[] {
  const whole = calibrated(head.calibration, predict(head.model, x));
  if (!head.stack) return whole;
  const per = pieces.map((xp) => calibrated(head.calibration, predict(head.model, xp)));
  return whole.map((p, o) =>
    stacked(
      head.stack![o],
      p,
      per.map((q) => q[o]),
    ),
  );
}

/** One label's stacked probability from the whole message's and its pieces' probabilities. */
function stacked(w: number[], whole: number, pieces: number[]): number {
  const max = pieces.length ? Math.max(...pieces) : whole;
  const mean = pieces.length ? pieces.reduce((a, b) => a + b, 0) / pieces.length : whole;
  return sigmoid(w[0] * logit(whole) + w[1] * logit(max) + w[2] * logit(mean) + w[3]);
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

/** Calibrated class probabilities of the polarity head. */
function polarityProbs(pol: { offsets: number[]; temperature: number }, raw: number[]): number[] {
  const z = raw.map((p, c) => (Math.log(Math.max(p, 1e-9)) + pol.offsets[c]) / pol.temperature);
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** The sentiment value, kept inside the predicted class. */
function sentimentValue(heads: Heads, x: ArrayLike<number>, text: string): number {
  const p = polarityProbs(heads.polarity, predict(heads.polarity.model, x));
  const cls = POLARITIES[p.indexOf(Math.max(...p))];
  const raw =
    p.reduce((sum, prob, c) => sum + prob * heads.sentiment.means[c], 0) + LEXICON_INTENSITY * lexiconScore(text).score;
  const v = Math.max(-1, Math.min(1, raw));
  const inClass =
    cls === 'negative' ? Math.min(v, -0.2) : cls === 'positive' ? Math.max(v, 0.2) : Math.max(-0.19, Math.min(0.19, v));
  return Math.round(inClass * 1000) / 1000 || 0;
}

/** The heads' reading of one message, from its encoding (features.ts). */
export function applyHeads(heads: Heads, enc: Encoded, text: string): Prediction {
  const x = standardise(featureRow(enc.vector, text), heads);
  const pieces = heads.options.stackPieces ? pieceRows(enc, heads) : [];
  const topics = pickLabels(heads.topics, labelProbs(heads.topics, x, pieces));
  const intentions = pickLabels(heads.intentions, labelProbs(heads.intentions, x, pieces));
  if (pickLabels(heads.churn, labelProbs(heads.churn, x, pieces)).length > 0) intentions.unshift('churn');
  return { sentiment: sentimentValue(heads, x, text), topics, intentions: intentions.slice(0, MAX_LABELS) };
}

/** The feature rows of a message's pieces, each read as a message of its own. */
function pieceRows(enc: Encoded, std: { mean: number[]; scale: number[] }): Float64Array[] {
  return enc.pieces.map((vector, k) => standardise(featureRow(vector, enc.pieceTexts[k]), std));
}

interface Prepared {
  x: Float64Array[];
  topics: number[][];
  intentions: number[][];
  churn: number[][];
  polarity: number[][];
}

function prepare(items: LabelledText[], rows: Float64Array[]): Prepared {
  const others = INTENTIONS.filter((l) => l !== 'churn');
  return {
    x: rows,
    topics: items.map((it) => multiHot(TOPICS, it.topics)),
    intentions: items.map((it) => multiHot(others, it.intentions)),
    churn: items.map((it) => [it.intentions.includes('churn') ? 1 : 0]),
    polarity: items.map((it) => POLARITIES.map((p) => (polarityOf(it.sentiment) === p ? 1 : 0))),
  };
}

interface Fitted {
  topics: LinearModel;
  intentions: LinearModel;
  churn: LinearModel;
  polarity: LinearModel;
}

async function fitAll(d: Prepared, options: HeadsOptions, runs: number): Promise<Fitted> {
  const labels = (y: number[][]) => {
    const positiveWeight = positiveWeights(y);
    return averaged(runs, (seed) => train(d.x, y, { kind: 'sigmoid', ...TRAINING(options), seed, positiveWeight }));
  };
  return {
    topics: await labels(d.topics),
    intentions: await labels(d.intentions),
    churn: await labels(d.churn),
    polarity: await averaged(runs, (seed) => train(d.x, d.polarity, { kind: 'softmax', ...TRAINING(options), seed })),
  };
}

/** Class offsets with the best out-of-fold accuracy (small ones first), then the temperature with the best log-loss. */
function fitPolarity(probs: number[][], gold: number[][]): { offsets: number[]; temperature: number } {
  const steps = [-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1].sort((a, b) => Math.abs(a) - Math.abs(b));
  let best = { offsets: [0, 0, 0], accuracy: -1 };
  for (const n of steps)
    for (const p of steps) {
      const offsets = [0, n, p];
      const accuracy = probs.filter((pr, i) => {
        const z = pr.map((v, c) => Math.log(Math.max(v, 1e-9)) + offsets[c]);
        return gold[i][z.indexOf(Math.max(...z))] === 1;
      }).length;
      if (accuracy > best.accuracy) best = { offsets, accuracy };
    }
  let temperature = 1;
  let bestLoss = Infinity;
  for (const t of [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3]) {
    const pol = { offsets: best.offsets, temperature: t };
    const loss = probs.reduce(
      (sum, pr, i) => sum - Math.log(Math.max(1e-9, polarityProbs(pol, pr)[gold[i].indexOf(1)])),
      0,
    );
    if (loss < bestLoss - 1e-9) [temperature, bestLoss] = [t, loss];
  }
  return { offsets: best.offsets, temperature };
}

/**
 * Trains every head on the corpus' encodings (from the embedder that will use them).
 * Deterministic: the same encodings and corpus give the same heads. Calibration and thresholds
 * come from the out-of-fold predictions of INNER_REPEATS FOLDS-fold cross-validations (single runs,
 * for time: the final heads average 3 runs, whose logits are close to a single run's; the eval
 * figures include that difference), then the heads are fitted once more on
 * everything (averaged runs).
 */
export async function trainHeads(input: {
  embedder: string;
  corpusHash: string;
  items: LabelledText[];
  encoded: Encoded[];
  options?: Partial<HeadsOptions>;
}): Promise<Heads> {
  const options = { ...DEFAULT_HEADS_OPTIONS, ...input.options };
  const raw = input.items.map((it, i) => featureRow(input.encoded[i].vector, it.text));
  const std = standardiser(raw);
  const all = prepare(
    input.items,
    raw.map((r) => standardise(r, std)),
  );
  const n = input.items.length;
  const subset = (idx: number[]): Prepared =>
    Object.fromEntries(
      Object.entries(all).map(([k, rows]) => [k, idx.map((i) => (rows as unknown[])[i])]),
    ) as unknown as Prepared;

  const oof = {
    topics: [] as number[][],
    intentions: [] as number[][],
    churn: [] as number[][],
    polarity: [] as number[][],
    pieces: { topics: [] as number[][][], intentions: [] as number[][][], churn: [] as number[][][] },
  };
  const pieces = input.items.map((_, i) => (options.stackPieces ? pieceRows(input.encoded[i], std) : []));
  // INNER_REPEATS cross-validations on different folds: every message has that many out-of-fold
  // predictions, so a threshold does not hang on one draw of the folds (row r * n + i).
  for (let r = 0; r < INNER_REPEATS; r++) {
    const fold = new Array<number>(n);
    shuffled(n, seededRandom(SEED + 101 * r)).forEach((i, k) => (fold[i] = k % FOLDS));
    for (let f = 0; f < FOLDS; f++) {
      const m = await fitAll(subset([...Array(n).keys()].filter((i) => fold[i] !== f)), options, 1);
      for (let i = 0; i < n; i++) {
        if (fold[i] !== f) continue;
        const row = r * n + i;
        oof.topics[row] = predict(m.topics, all.x[i]);
        oof.intentions[row] = predict(m.intentions, all.x[i]);
        oof.churn[row] = predict(m.churn, all.x[i]);
        oof.polarity[row] = predict(m.polarity, all.x[i]);
        oof.pieces.topics[row] = pieces[i].map((xp) => predict(m.topics, xp));
        oof.pieces.intentions[row] = pieces[i].map((xp) => predict(m.intentions, xp));
        oof.pieces.churn[row] = pieces[i].map((xp) => predict(m.churn, xp));
      }
    }
  }
  const rep = <T>(rows: T[]): T[] => Array.from({ length: INNER_REPEATS }, () => rows).flat();
  const gold = {
    topics: rep(all.topics),
    intentions: rep(all.intentions),
    churn: rep(all.churn),
    polarity: rep(all.polarity),
    items: rep(input.items),
  };
  const calibrate = (scores: number[][], gold: number[][]): Calibration => {
    const fits = gold[0].map((_, o) =>
      options.calibrate
        ? plattFit(
            scores.map((s) => s[o]),
            gold.map((g) => g[o]),
          )
        : { a: 1, b: 0 },
    );
    return { a: fits.map((f) => f.a), b: fits.map((f) => f.b) };
  };
  const head = (labels: string[], scores: number[][], pieceScores: number[][][], gold: number[][], beta: number) => {
    const calibration = calibrate(scores, gold);
    const whole = scores.map((s) => calibrated(calibration, s));
    const per = pieceScores.map((ps) => ps.map((s) => calibrated(calibration, s)));
    // The second stage is fitted on out-of-fold probabilities too: 4 weights per label.
    const stack = options.stackPieces
      ? gold[0].map((_, o) =>
          logisticFit(
            whole.map((w, i) => {
              const q = per[i].map((p) => p[o]);
              const max = q.length ? Math.max(...q) : w[o];
              const mean = q.length ? q.reduce((a, b) => a + b, 0) / q.length : w[o];
              return [logit(w[o]), logit(max), logit(mean)];
            }),
            gold.map((g) => g[o]),
          ),
        )
      : undefined;
    const probs = stack
      ? whole.map((w, i) =>
          w.map((p, o) =>
            stacked(
              stack[o],
              p,
              per[i].map((q) => q[o]),
            ),
          ),
        )
      : whole;
    const thresholds = gold[0].map((_, o) =>
      bestThreshold(
        probs.map((s) => s[o]),
        gold.map((g) => g[o]),
        beta,
      ),
    );
    return { labels, calibration, stack, thresholds, probs };
  };
  const topics = head([...TOPICS], oof.topics, oof.pieces.topics, gold.topics, 1);
  const intentions = head(
    INTENTIONS.filter((l) => l !== 'churn'),
    oof.intentions,
    oof.pieces.intentions,
    gold.intentions,
    1,
  );
  const churn = head(['churn'], oof.churn, oof.pieces.churn, gold.churn, options.churnBeta);
  const polarity = options.calibrate
    ? fitPolarity(oof.polarity, gold.polarity)
    : { offsets: [0, 0, 0], temperature: 1 };
  const means = POLARITIES.map((p) => {
    const of = input.items.filter((it) => polarityOf(it.sentiment) === p);
    return of.length ? of.reduce((sum, it) => sum + it.sentiment, 0) / of.length : 0;
  });

  const cut = (probs: number[][], t: number[]) => probs.map((s) => s.map((v, o) => (v >= t[o] ? 1 : 0)));
  const churnPred = cut(churn.probs, churn.thresholds).map((r) => r[0]);
  const churnTp = churnPred.filter((p, i) => p && gold.churn[i][0]).length;
  const polarityPred = oof.polarity.map((p) => {
    const q = polarityProbs(polarity, p);
    return q.indexOf(Math.max(...q));
  });
  const crossValidation = {
    folds: FOLDS,
    topicF1: microF1(gold.topics, cut(topics.probs, topics.thresholds)),
    intentionF1: microF1(
      gold.intentions.map((r, i) => [...r, gold.churn[i][0]]),
      cut(intentions.probs, intentions.thresholds).map((r, i) => [...r, churnPred[i]]),
    ),
    polarityAccuracy: polarityPred.filter((c, i) => gold.polarity[i][c] === 1).length / gold.items.length,
    sentimentMae:
      gold.items.reduce((sum, it, i) => {
        const v = polarityProbs(polarity, oof.polarity[i]).reduce((s, p, c) => s + p * means[c], 0);
        return sum + Math.abs(Math.max(-1, Math.min(1, v)) - it.sentiment);
      }, 0) / gold.items.length,
    churn: {
      precision: churnTp / Math.max(1, churnPred.filter(Boolean).length),
      recall: churnTp / Math.max(1, gold.churn.filter((r) => r[0]).length),
    },
  };

  const m = await fitAll(all, options, LABEL_OPTIONS.ensemble);
  const label = (h: typeof topics, model: LinearModel): LabelHead => ({
    labels: h.labels,
    model,
    calibration: h.calibration,
    ...(h.stack ? { stack: h.stack } : {}),
    thresholds: h.thresholds,
  });
  return {
    version: HEADS_VERSION,
    embedder: input.embedder,
    dimensions: input.encoded[0]?.vector.length ?? 0,
    options,
    corpusHash: input.corpusHash,
    mean: std.mean,
    scale: std.scale,
    topics: label(topics, m.topics),
    intentions: label(intentions, m.intentions),
    churn: label(churn, m.churn),
    polarity: { model: m.polarity, ...polarity },
    sentiment: { means },
    crossValidation,
  };
}
