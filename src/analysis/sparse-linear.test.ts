import { describe, expect, it } from 'vitest';
import { DEFAULT_SPARSE_OPTIONS, packSparse, predictSparse, trainSparse, unpackSparse } from './sparse-linear.js';
import { drivingWords } from './word-explain.js';
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

describe('packSparse', () => {
  it('stores only the touched features and reads the same probabilities back through JSON', async () => {
    const rows = texts.map(([t]) => wordFeatures(t));
    const model = await trainSparse(
      rows,
      texts.map(([, y]) => [y, 1 - y]),
      { ...DEFAULT_SPARSE_OPTIONS, kind: 'sigmoid' },
    );
    const packed = packSparse(model);
    const back = unpackSparse(JSON.parse(JSON.stringify(packed)));
    const touched = new Set(rows.flatMap((r) => [...r.index])).size;
    expect(Buffer.from(packed.features, 'base64').length).toBe(touched * 4);
    for (const t of ['great app', 'it crashes, not good', 'unseen words entirely'])
      expect(predictSparse(back, wordFeatures(t))).toEqual(predictSparse(model, wordFeatures(t)));
    // Pruning drops features, and a damaged form is refused.
    expect(Buffer.from(packSparse(model, 0.5).features, 'base64').length).toBeLessThan(touched * 4);
    expect(() => unpackSparse({ ...packed, bias: [0] })).toThrow(/shape/);
  });
});

describe('drivingWords', () => {
  it("names the text's own words that pushed an output up, most weighted first", async () => {
    const rows = texts.map(([t]) => wordFeatures(t));
    const model = await trainSparse(
      rows,
      texts.map(([, y]) => [1 - y]),
      { ...DEFAULT_SPARSE_OPTIONS, kind: 'sigmoid' },
    );
    const words = drivingWords(model, 0, 'the update crashes and is not working', 3);
    expect(words.length).toBeGreaterThan(0);
    expect(words.length).toBeLessThanOrEqual(3);
    // Only words and pairs of this text (negation read as "not ...").
    const said = [
      'the',
      'update',
      'crashes',
      'and',
      'is',
      'not',
      'not working',
      'the update',
      'update crashes',
      'crashes and',
      'and is',
      'is not',
      'not not working',
    ];
    for (const w of words) expect(said).toContain(w);
    expect(words).toContain('crashes');
    expect(drivingWords(model, 0, 'love it', 3)).not.toContain('love');
  });
});
