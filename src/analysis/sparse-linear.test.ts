import { describe, expect, it } from 'vitest';
import { DEFAULT_SPARSE_OPTIONS, predictSparse, trainSparse } from './sparse-linear.js';
import { wordFeatures } from './word-features.js';

const texts = [
  ['great app, works well', 1],
  ['love the new update', 1],
  ['works great, thank you', 1],
  ['not working at all', 0],
  ['the app crashes, not good', 0],
  ['terrible update, it crashes', 0],
] as const;

describe('trainSparse', () => {
  it('learns a sigmoid label from hashed words and reads unseen text by the words it saw', async () => {
    const rows = texts.map(([t]) => wordFeatures(t));
    const model = await trainSparse(
      rows,
      texts.map(([, y]) => [y]),
      { ...DEFAULT_SPARSE_OPTIONS, kind: 'sigmoid' },
    );
    for (const [t, y] of texts) expect(Math.round(predictSparse(model, wordFeatures(t))[0])).toBe(y);
    expect(predictSparse(model, wordFeatures('great, thank you'))[0]).toBeGreaterThan(0.5);
    expect(predictSparse(model, wordFeatures('it crashes'))[0]).toBeLessThan(0.5);
  });

  it('gives a softmax distribution over the classes, the same weights for the same seed', async () => {
    const rows = texts.map(([t]) => wordFeatures(t));
    const targets = texts.map(([, y]) => (y ? [0, 1] : [1, 0]));
    const opts = { ...DEFAULT_SPARSE_OPTIONS, kind: 'softmax' as const };
    const [a, b] = [await trainSparse(rows, targets, opts), await trainSparse(rows, targets, opts)];
    const p = predictSparse(a, wordFeatures('love it'));
    expect(p[0] + p[1]).toBeCloseTo(1, 9);
    expect(p).toEqual(predictSparse(b, wordFeatures('love it')));
  });
});
