import { describe, expect, it } from 'vitest';
import { wordFeatures } from '../analysis/word-features.js';
import { bestThreshold, labelScorer, MAX_VOCABULARY, trainLabel, type LabelExample } from './label-model.js';

/** Toy vectors: a "topic" direction plus noise, so the fit has something to find. */
function vectorOf(match: boolean, i: number): number[] {
  const v = Array.from({ length: 16 }, (_, k) => Math.sin(i * 7 + k) * 0.1);
  v[0] += match ? 1 : -1;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe('a label model', () => {
  const examples: LabelExample[] = [
    ...Array.from({ length: 10 }, (_, i) => ({ text: `parcel ${i} arrived late again`, match: true })),
    ...Array.from({ length: 10 }, (_, i) => ({ text: `love the new colour ${i}`, match: false })),
  ];
  const vectors = examples.map((e, i) => vectorOf(e.match, i));

  it('learns from 10 + 10 examples, reports cross-validated quality and scores new texts', async () => {
    const { model, quality } = await trainLabel('toy', vectors, examples);
    expect(quality).toMatchObject({ folds: 5, examples: 20, matching: 10 });
    expect(quality.f1).toBe(1);
    // Ten of each is under the size at which the figures are trusted: said so.
    expect(quality.warning).toMatch(/rough until each side has 20/);
    const score = labelScorer(model);
    expect(score(vectorOf(true, 99), wordFeatures('my parcel arrived late'))).toBeGreaterThanOrEqual(model.threshold);
    expect(score(vectorOf(false, 98), wordFeatures('the colour is lovely'))).toBeLessThan(model.threshold);
    // A vector of another embedder's size is not scored.
    expect(score([1, 0, 0], wordFeatures('parcel late'))).toBe(0);
    // The model keeps only what scoring needs: the examples' vocabulary, not their texts.
    expect(JSON.stringify(model)).not.toContain('parcel');
  });

  it('keeps at most MAX_VOCABULARY word features, however varied the examples', { timeout: 120_000 }, async () => {
    // 500 examples of 200 random letters: about 124,000 distinct features unbounded.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const char = () => {
      const r = next();
      return r % 7 === 0 ? ' ' : String.fromCharCode(97 + (r % 26));
    };
    const noisy = Array.from({ length: 500 }, (_, i) => ({
      text: Array.from({ length: 200 }, char).join(''),
      match: i % 2 === 0,
    }));
    const { model } = await trainLabel(
      'toy',
      noisy.map((e, i) => vectorOf(e.match, i)),
      noisy,
    );
    expect(model.wordIndex.length).toBe(MAX_VOCABULARY);
    expect(model.wordWeights).toHaveLength(MAX_VOCABULARY);
  });

  it('is deterministic: the same examples give the same model', async () => {
    const a = await trainLabel('toy', vectors, examples);
    const b = await trainLabel('toy', vectors, examples);
    expect(a).toEqual(b);
  });

  it('refuses fewer than two of either side', async () => {
    await expect(trainLabel('toy', vectors.slice(9), examples.slice(9))).rejects.toThrow(/at least two matching/);
  });

  it('chooses the threshold with the best out-of-fold F1, nearest 0.5 among equals', () => {
    expect(bestThreshold([0.1, 0.2, 0.8, 0.9], [false, false, true, true])).toBe(0.5);
    expect(bestThreshold([0.1, 0.3, 0.35, 0.9], [false, false, true, true])).toBeCloseTo(0.325);
  });
});
