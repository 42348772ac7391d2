import { describe, expect, it } from 'vitest';
import { lexiconScore } from './lexicon.js';

describe('sentiment lexicon', () => {
  it('catches domain negatives, negation and praise through negated negatives', () => {
    expect(lexiconScore('The app keeps crashing').score).toBeLessThan(-0.3);
    expect(lexiconScore('This is not good').score).toBeLessThan(0);
    expect(lexiconScore('It works great').score).toBeGreaterThan(0.3);
    expect(lexiconScore("Honestly can't fault it").score).toBeGreaterThan(0.3);
    expect(lexiconScore('Das ist leider nicht gut').score).toBeLessThan(0);
    expect(lexiconScore('The meeting is on Monday')).toEqual({ score: 0, hits: 0 });
  });
});
