import { describe, expect, it } from 'vitest';
import { loadCorpus } from './corpus.js';
import { seededRandom, shuffled } from './linear.js';
import { foldStratum, groupedStratifiedFolds, nearDuplicateGroups } from './folds.js';

describe('folds that keep counterfactual twins together', () => {
  it('groups a minimal edit with its original, transitively, and leaves other lines alone', () => {
    const texts = [
      "The sync didn't drop a single file during the migration this week.",
      'The payroll export is due on Friday, can someone check the format?',
      'The sync dropped file after file during the migration this week.',
      'The sync dropped file after file during the migration this week!!',
      'Loving the new dark mode on the tablet app.',
    ];
    const groups = nearDuplicateGroups(texts).map((g) => [...g].sort());
    expect(groups.sort((a, b) => a[0] - b[0])).toEqual([[0, 2, 3], [1], [4]]);
  });

  it('puts every group in one fold and keeps the folds about even', () => {
    const groups = [[0, 5], [1], [2, 3, 4], [6], [7, 8], [9]];
    const fold = groupedStratifiedFolds(groups, 10, 3, 7, () => 'one stratum');
    for (const g of groups) expect(new Set(g.map((i) => fold[i])).size).toBe(1);
    expect(fold.every((f) => f >= 0 && f < 3)).toBe(true);
    // Six groups dealt round-robin over three folds: two groups each.
    const perFold = [0, 1, 2].map((f) => groups.filter((g) => fold[g[0]] === f).length);
    expect(perFold).toEqual([2, 2, 2]);
  });

  it('keeps each of the corpus twin groups in a single fold', () => {
    const items = loadCorpus().items;
    const groups = nearDuplicateGroups(items.map((it) => it.text));
    const twins = groups.filter((g) => g.length > 1);
    // The corpus' counterfactual pairs (data/train/README.md): hundreds of groups.
    expect(twins.length).toBeGreaterThan(300);
    const fold = groupedStratifiedFolds(groups, items.length, 5, 1401, (i) => items[i].register ?? '');
    const split = twins.filter((g) => new Set(g.map((i) => fold[i])).size > 1);
    expect(split).toEqual([]);
    // Every fold holds a fifth of the lines, give or take the largest groups.
    const sizes = [0, 1, 2, 3, 4].map((f) => fold.filter((x) => x === f).length);
    for (const s of sizes) expect(Math.abs(s - items.length / 5)).toBeLessThan(items.length * 0.02);
  });

  it('with every line its own group, deals exactly the folds of the plain stratified k-fold before it', () => {
    // The dealing `npm run eval` used before twins were grouped (src/bin/eval.ts until 2026-12-06):
    // --twins=apart must give the same folds for the same seed, so earlier figures can be rerun.
    const items = loadCorpus().items;
    const key = (i: number) => foldStratum(items[i]);
    const before = (seed: number) => {
      const fold = new Array<number>(items.length);
      const strata = new Map<string, number[]>();
      for (const i of shuffled(items.length, seededRandom(seed)))
        strata.set(key(i), [...(strata.get(key(i)) ?? []), i]);
      let k = 0;
      for (const s of [...strata.keys()].sort()) for (const i of strata.get(s)!) fold[i] = k++ % 5;
      return fold;
    };
    for (const seed of [7, 1401])
      expect(
        groupedStratifiedFolds(
          items.map((_, i) => [i]),
          items.length,
          5,
          seed,
          key,
        ),
      ).toEqual(before(seed));
  });
});
