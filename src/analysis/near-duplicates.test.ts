import { describe, expect, it } from 'vitest';
import { charGrams, jaccard, nearDuplicates } from './near-duplicates.js';

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
});
