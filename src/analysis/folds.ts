import { seededRandom, shuffled } from './linear.js';
import type { LabelledText } from './corpus.js';
import { polarity } from './eval.js';
import { nearDuplicates } from './near-duplicates.js';

/** The stratum `npm run eval` deals its folds by: register, polarity class and churn. */
export const foldStratum = (it: LabelledText) =>
  `${it.register}|${polarity(it.sentiment)}|${it.intentions.includes('churn') ? 'churn' : ''}`;

/**
 * Groups of near-duplicate texts (character 5-gram Jaccard at or above `bound`, joined
 * transitively), each as item indices, every text in exactly one group. The corpus holds
 * counterfactual twins, the same words with opposite labels (data/train/README.md): a fold that
 * judges one twin while its other half is in training measures how a reader copes with a
 * contradicting neighbour, not how it reads unseen text. Kept in one fold, a word reader's options
 * rank as the held-out sets rank them (docs/analysis.md, "Figures").
 */
export function nearDuplicateGroups(texts: string[], bound = 0.4): number[][] {
  const parent = texts.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const [i, j] of nearDuplicates(texts, texts, bound)) if (i !== j) parent[root(i)] = root(j);
  const groups = new Map<number, number[]>();
  texts.forEach((_, i) => {
    const r = root(i);
    const g = groups.get(r);
    if (g) g.push(i);
    else groups.set(r, [i]);
  });
  return [...groups.values()];
}

/**
 * Stratified folds over groups: after a seeded shuffle, each group goes to the stratum of its first
 * member and the strata are dealt round-robin, a whole group to one fold. With every group a single
 * item this is plain stratified k-fold.
 */
export function groupedStratifiedFolds(
  groups: number[][],
  n: number,
  folds: number,
  seed: number,
  stratum: (i: number) => string,
): number[] {
  const fold = new Array<number>(n).fill(-1);
  const strata = new Map<string, number[][]>();
  for (const g of shuffled(groups.length, seededRandom(seed)).map((k) => groups[k])) {
    const key = stratum(g[0]);
    const list = strata.get(key);
    if (list) list.push(g);
    else strata.set(key, [g]);
  }
  let k = 0;
  for (const key of [...strata.keys()].sort())
    for (const g of strata.get(key)!) {
      for (const i of g) fold[i] = k % folds;
      k++;
    }
  return fold;
}
