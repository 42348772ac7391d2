import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../analysis/embedder.js';
import { predict, train } from '../analysis/linear.js';
import { wordFeatures } from '../analysis/word-features.js';
import { labelScorer, trainLabel, type LabelExample } from './label-model.js';

/**
 * Custom labels measured on texts they were not taught with (data/labels-eval): each label is
 * taught its 10 + 10 examples and judged on 40 other texts (16 matching, 12 near misses sharing its
 * words or topic, 12 others of the same business). Beside it, the plain baseline the issue names:
 * logistic regression on the sentence vectors alone at 0.5.
 */
interface EvalLabel {
  name: string;
  description: string;
  train: LabelExample[];
  test: (LabelExample & { kind: 'positive' | 'near_miss' | 'other' })[];
}

export type LabelEvalSet = 'dev' | 'test';
const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/labels-eval');

export function loadLabelEval(set: LabelEvalSet): EvalLabel[] {
  return readFileSync(path.join(DIR, `${set}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as EvalLabel);
}

export interface LabelScore {
  name: string;
  f1: number;
  precision: number;
  recall: number;
  /** Near misses read as matches, of 12. */
  nearMissesMatched: number;
  baselineF1: number;
  /** The label's own cross-validated F1, as the API reports it. */
  reportedF1: number;
}

function f1Of(predicted: boolean[], truth: boolean[]) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  predicted.forEach((p, i) => {
    if (p && truth[i]) tp++;
    else if (p) fp++;
    else if (truth[i]) fn++;
  });
  const precision = tp + fp ? tp / (tp + fp) : 0;
  const recall = tp + fn ? tp / (tp + fn) : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

export async function evaluateLabels(embedder: Embedder, set: LabelEvalSet): Promise<LabelScore[]> {
  const out: LabelScore[] = [];
  for (const label of loadLabelEval(set)) {
    const texts = [...label.train.map((e) => e.text), ...label.test.map((e) => e.text)];
    const vectors = await embedder.embed(texts);
    const trainVectors = vectors.slice(0, label.train.length);
    const testVectors = vectors.slice(label.train.length);
    const { model, quality } = await trainLabel(embedder.name, trainVectors, label.train);
    const score = labelScorer(model);
    const predicted = label.test.map((e, i) => score(testVectors[i], wordFeatures(e.text)) >= model.threshold);
    const truth = label.test.map((e) => e.match);
    const plain = await train(
      trainVectors,
      label.train.map((e) => [e.match ? 1 : 0]),
      { kind: 'sigmoid', epochs: 150, learningRate: 0.02, l2: 1e-3, batchSize: 8, seed: 47 },
    );
    const baseline = label.test.map((_, i) => predict(plain, testVectors[i])[0] >= 0.5);
    out.push({
      name: label.name,
      ...f1Of(predicted, truth),
      nearMissesMatched: label.test.filter((e, i) => e.kind === 'near_miss' && predicted[i]).length,
      baselineF1: f1Of(baseline, truth).f1,
      reportedF1: quality.f1,
    });
  }
  return out;
}
