import { trainingStep } from './training-cancel.js';

/**
 * Linear heads on fixed features: multi-label logistic regression (one sigmoid per label) and
 * softmax (one class of several). Written here rather than taken from a
 * library because the npm ML libraries either need native TensorFlow (which cannot install offline)
 * or are unmaintained, and this is ~150 lines: mini-batch Adam with L2, a seeded shuffle so the same
 * data gives bit-for-bit the same weights, and a yield to the event loop between epochs so a worker
 * training its heads keeps heartbeating its other activities.
 */

export type LinearKind = 'sigmoid' | 'softmax';

export interface LinearModel {
  kind: LinearKind;
  /** outputs × inputs, row-major. */
  weights: number[];
  bias: number[];
  inputs: number;
  outputs: number;
}

export interface TrainOptions {
  kind: LinearKind;
  epochs: number;
  learningRate: number;
  l2: number;
  batchSize: number;
  seed: number;
  /** Loss weight of a positive example per output (sigmoid only): rare labels get more. */
  positiveWeight?: number[];
}

/** mulberry32: a small seeded generator, so training is deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled(n: number, random: () => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** Raw outputs: the logits. */
function logits(
  m: { weights: ArrayLike<number>; bias: ArrayLike<number>; inputs: number; outputs: number },
  x: ArrayLike<number>,
  out: Float64Array,
) {
  for (let o = 0; o < m.outputs; o++) {
    let s = m.bias[o];
    const row = o * m.inputs;
    for (let k = 0; k < m.inputs; k++) s += m.weights[row + k] * x[k];
    out[o] = s;
  }
}

/** In place: logits to probabilities. */
function activate(kind: LinearKind, z: Float64Array) {
  if (kind === 'sigmoid') for (let o = 0; o < z.length; o++) z[o] = sigmoid(z[o]);
  else {
    let max = -Infinity;
    for (const v of z) max = Math.max(max, v);
    let sum = 0;
    for (let o = 0; o < z.length; o++) sum += z[o] = Math.exp(z[o] - max);
    for (let o = 0; o < z.length; o++) z[o] /= sum;
  }
}

export function predict(m: LinearModel, x: ArrayLike<number>): number[] {
  const z = new Float64Array(m.outputs);
  logits(m, x, z);
  activate(m.kind, z);
  return Array.from(z);
}

/**
 * Trains on rows `x` (features) and targets `y`: per output 0/1 (sigmoid) or a one-hot row
 * (softmax). Cross-entropy, gradient of the mean over a batch, L2 on the weights (not the biases).
 */
export async function train(x: ArrayLike<number>[], y: number[][], opts: TrainOptions): Promise<LinearModel> {
  const inputs = x[0]?.length ?? 0;
  const outputs = y[0]?.length ?? 0;
  const w = new Float64Array(outputs * inputs);
  const b = new Float64Array(outputs);
  // Adam state.
  const mw = new Float64Array(w.length);
  const vw = new Float64Array(w.length);
  const mb = new Float64Array(outputs);
  const vb = new Float64Array(outputs);
  const gw = new Float64Array(w.length);
  const gb = new Float64Array(outputs);
  const z = new Float64Array(outputs);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  const random = seededRandom(opts.seed);
  const model = { weights: w, bias: b, inputs, outputs };
  let step = 0;
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    const order = shuffled(x.length, random);
    for (let start = 0; start < order.length; start += opts.batchSize) {
      const batch = order.slice(start, start + opts.batchSize);
      gw.fill(0);
      gb.fill(0);
      for (const i of batch) {
        const xi = x[i];
        logits(model, xi, z);
        activate(opts.kind, z);
        for (let o = 0; o < outputs; o++) {
          // For both losses the gradient wrt the logit is (prediction - target), weighted.
          const target = y[i][o];
          const weight = opts.kind === 'sigmoid' && target > 0.5 ? (opts.positiveWeight?.[o] ?? 1) : 1;
          const d = (z[o] - target) * weight;
          if (d === 0) continue;
          gb[o] += d;
          const row = o * inputs;
          for (let k = 0; k < inputs; k++) gw[row + k] += d * xi[k];
        }
      }
      step++;
      const lr = (opts.learningRate * Math.sqrt(1 - beta2 ** step)) / (1 - beta1 ** step);
      const scale = 1 / batch.length;
      for (let k = 0; k < w.length; k++) {
        const g = gw[k] * scale + opts.l2 * w[k];
        mw[k] = beta1 * mw[k] + (1 - beta1) * g;
        vw[k] = beta2 * vw[k] + (1 - beta2) * g * g;
        w[k] -= (lr * mw[k]) / (Math.sqrt(vw[k]) + eps);
      }
      for (let o = 0; o < outputs; o++) {
        const g = gb[o] * scale;
        mb[o] = beta1 * mb[o] + (1 - beta1) * g;
        vb[o] = beta2 * vb[o] + (1 - beta2) * g * g;
        b[o] -= (lr * mb[o]) / (Math.sqrt(vb[o]) + eps);
      }
    }
    await trainingStep();
  }
  return { kind: opts.kind, weights: Array.from(w), bias: Array.from(b), inputs, outputs };
}
