import { trainingStep } from './training-cancel.js';
import { WORD_FEATURE_BITS, type SparseRow } from './word-features.js';
import { seededRandom, shuffled } from './linear.js';

/**
 * Logistic regression over hashed sparse rows (word-features.ts): one sigmoid per label, or a
 * softmax over classes. linear.ts's dense fit touches every weight for every example; here an
 * example touches only its own few hundred features, so 2^18 of them train in seconds. Written
 * here rather than taken from npm: the libraries found are dense, native, or unmaintained, and
 * this is AdaGrad SGD with L2 in under 150 lines, seeded so the same data gives the same weights.
 */

export type SparseKind = 'sigmoid' | 'softmax';

export interface SparseModel {
  kind: SparseKind;
  outputs: number;
  /** features × outputs, feature-major: an example reads its features' rows. */
  weights: Float32Array;
  bias: Float64Array;
}

export interface SparseTrainOptions {
  kind: SparseKind;
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
  /**
   * Balance the classes: sigmoid, a positive example of a rare label weighs negatives/positives
   * (at most `maxPositiveWeight`); softmax, each class weighs n / (classes × its count).
   */
  balanced: boolean;
  maxPositiveWeight?: number;
}

export const DEFAULT_SPARSE_OPTIONS: Omit<SparseTrainOptions, 'kind'> = {
  epochs: 12,
  learningRate: 0.5,
  l2: 1e-3,
  seed: 7,
  balanced: true,
  maxPositiveWeight: 4,
};

const FEATURES = 1 << WORD_FEATURE_BITS;
const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

function logits(m: SparseModel, row: SparseRow, out: Float64Array): void {
  for (let o = 0; o < m.outputs; o++) out[o] = m.bias[o];
  for (let k = 0; k < row.index.length; k++) {
    const base = row.index[k] * m.outputs;
    const v = row.value[k];
    for (let o = 0; o < m.outputs; o++) out[o] += m.weights[base + o] * v;
  }
}

function activate(kind: SparseKind, z: Float64Array): void {
  if (kind === 'sigmoid') {
    for (let o = 0; o < z.length; o++) z[o] = sigmoid(z[o]);
    return;
  }
  let max = -Infinity;
  for (const v of z) max = Math.max(max, v);
  let sum = 0;
  for (let o = 0; o < z.length; o++) sum += z[o] = Math.exp(z[o] - max);
  for (let o = 0; o < z.length; o++) z[o] /= sum;
}

/** Probabilities per output: independent sigmoids, or a distribution over the classes. */
export function predictSparse(m: SparseModel, row: SparseRow): number[] {
  const z = new Float64Array(m.outputs);
  logits(m, row, z);
  activate(m.kind, z);
  return [...z];
}

/**
 * Trains on rows and targets: sigmoid, one 0/1 per output; softmax, one-hot. Returns the model;
 * yields to the event loop between epochs, as linear.ts does.
 */
export async function trainSparse(
  rows: SparseRow[],
  targets: number[][],
  opts: SparseTrainOptions,
): Promise<SparseModel> {
  const outputs = targets[0]?.length ?? 0;
  const m: SparseModel = {
    kind: opts.kind,
    outputs,
    weights: new Float32Array(FEATURES * outputs),
    bias: new Float64Array(outputs),
  };
  const squared = new Float32Array(FEATURES * outputs);
  const biasSquared = new Float64Array(outputs);
  const weight = exampleWeights(targets, opts);
  const random = seededRandom(opts.seed);
  const z = new Float64Array(outputs);
  const g = new Float64Array(outputs);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (const n of shuffled(rows.length, random)) {
      const row = rows[n];
      logits(m, row, z);
      activate(m.kind, z);
      for (let o = 0; o < outputs; o++) g[o] = (z[o] - targets[n][o]) * weight[n][o];
      for (let o = 0; o < outputs; o++) {
        biasSquared[o] += g[o] * g[o];
        m.bias[o] -= (opts.learningRate * g[o]) / Math.sqrt(biasSquared[o] + 1e-8);
      }
      // AdaGrad: a feature seen rarely keeps a large step; L2 only on the weights this row touches.
      for (let k = 0; k < row.index.length; k++) {
        const base = row.index[k] * outputs;
        const v = row.value[k];
        for (let o = 0; o < outputs; o++) {
          const i = base + o;
          const grad = g[o] * v + opts.l2 * m.weights[i];
          squared[i] += grad * grad;
          m.weights[i] -= (opts.learningRate * grad) / Math.sqrt(squared[i] + 1e-8);
        }
      }
    }
    await trainingStep();
  }
  return m;
}

/** Per example and output, the loss weight that balances the classes (1 when not balanced). */
function exampleWeights(targets: number[][], opts: SparseTrainOptions): number[][] {
  const n = targets.length;
  const outputs = targets[0]?.length ?? 0;
  if (!opts.balanced) return targets.map((t) => t.map(() => 1));
  const positives = Array.from({ length: outputs }, (_, o) => targets.reduce((s, t) => s + t[o], 0));
  if (opts.kind === 'softmax') {
    const classWeight = positives.map((p) => (p === 0 ? 0 : n / (outputs * p)));
    return targets.map((t) => {
      const c = t.indexOf(1);
      return t.map(() => classWeight[c]);
    });
  }
  const cap = opts.maxPositiveWeight ?? Infinity;
  const positiveWeight = positives.map((p) => (p === 0 ? 1 : Math.min(cap, Math.max(1, (n - p) / p))));
  return targets.map((t) => t.map((y, o) => (y === 1 ? positiveWeight[o] : 1)));
}

/**
 * A model as it is stored (in the heads' JSON): only the features any training row touched, whose
 * largest weight reaches `minWeight`, as base64 of their indices and weights. A dense 2^18 × outputs
 * array would weigh tens of megabytes of JSON; the few tens of thousands of features a corpus
 * touches weigh a few.
 */
export interface PackedSparse {
  kind: SparseKind;
  outputs: number;
  bias: number[];
  /** base64 of a Uint32Array of feature indices, ascending. */
  features: string;
  /** base64 of a Float32Array, features × outputs. */
  weights: string;
}

export function packSparse(m: SparseModel, minWeight = 0): PackedSparse {
  const kept: number[] = [];
  for (let f = 0; f < FEATURES; f++) {
    let max = 0;
    for (let o = 0; o < m.outputs; o++) max = Math.max(max, Math.abs(m.weights[f * m.outputs + o]));
    if (max > 0 && max >= minWeight) kept.push(f);
  }
  const features = Uint32Array.from(kept);
  const weights = new Float32Array(kept.length * m.outputs);
  kept.forEach((f, k) => weights.set(m.weights.subarray(f * m.outputs, (f + 1) * m.outputs), k * m.outputs));
  const b64 = (a: Uint32Array | Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return { kind: m.kind, outputs: m.outputs, bias: [...m.bias], features: b64(features), weights: b64(weights) };
}

/** The model back from its stored form; throws on a form that does not fit (heads-store.ts checks first). */
export function unpackSparse(p: PackedSparse): SparseModel {
  const bytes = (s: string) => {
    const b = Buffer.from(s, 'base64');
    // A copy, so that the typed array starts aligned whatever Buffer's pool offset.
    return new Uint8Array(b).buffer;
  };
  const features = new Uint32Array(bytes(p.features));
  const packed = new Float32Array(bytes(p.weights));
  if (packed.length !== features.length * p.outputs || p.bias.length !== p.outputs)
    throw new Error('packed sparse model has the wrong shape');
  const weights = new Float32Array(FEATURES * p.outputs);
  features.forEach((f, k) => {
    if (f >= FEATURES) throw new Error('packed sparse model names a feature out of range');
    weights.set(packed.subarray(k * p.outputs, (k + 1) * p.outputs), f * p.outputs);
  });
  return { kind: p.kind, outputs: p.outputs, weights, bias: Float64Array.from(p.bias) };
}
