import { describe, expect, it } from 'vitest';
import { loadCorpus } from './corpus.js';
import { charGrams, jaccard, nearDuplicates, nearDuplicatesBruteForce } from './near-duplicates.js';

describe('near-duplicates (character 5-gram Jaccard)', () => {
  it('finds a paraphrase that keeps most of the wording, not a message on the same subject', () => {
    const corpus = [
      'The invoice for March was charged twice, please refund one of them.',
      'Our March invoice shows two charges; can you refund the extra one?',
    ];
    const other = ['The invoice for March was charged twice, please refund one.'];
    expect(nearDuplicates(corpus, other)).toEqual([[0, 0]]);
    expect(jaccard(charGrams(corpus[1]), charGrams(other[0]))).toBeLessThan(0.5);
  });

  it('ignores case and runs of spaces', () => {
    expect(jaccard(charGrams('Great  APP'), charGrams('great app'))).toBe(1);
  });

  it('finds exactly the pairs the loop over every pair finds, at every bound', () => {
    // Corpus lines against edits of other corpus lines (every third word dropped, or the first
    // half kept): near pairs at every bound, and many pairs sharing only common grams.
    const texts = loadCorpus().items.map((it) => it.text);
    const left = texts.slice(0, 300);
    const right = texts.slice(150, 450).flatMap((t) => {
      const words = t.split(' ');
      return [words.filter((_, k) => k % 3 !== 2).join(' '), words.slice(0, Math.ceil(words.length / 2)).join(' ')];
    });
    right.push('', 'ok');
    left.push('', 'OK');
    for (const bound of [0.2, 0.4, 0.5, 0.7]) {
      const fast = nearDuplicates(left, right, bound);
      expect(fast).toEqual(nearDuplicatesBruteForce(left, right, bound));
      expect(fast.length, `pairs at ${bound}`).toBeGreaterThan(2);
    }
  });
});
