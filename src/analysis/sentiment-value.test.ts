import { describe, expect, it } from 'vitest';
import { DEFAULT_HEADS_OPTIONS, polarityOf, sentimentValue } from './heads.js';

// Class means as the corpus gives them (negative, neutral, positive); a text with no lexicon word.
const heads = { options: DEFAULT_HEADS_OPTIONS, sentiment: { means: [-0.6, 0, 0.6] } } as Parameters<
  typeof sentimentValue
>[0];
const TEXT = 'the invoice for march';

describe('sentiment value', () => {
  it('keeps an expectation that lies inside the decided class', () => {
    // argmax positive, expectation 0.24
    expect(sentimentValue(heads, [0.1, 0.4, 0.5], TEXT)).toBeCloseTo(0.24, 3);
    expect(sentimentValue(heads, [0.7, 0.2, 0.1], TEXT)).toBeCloseTo(-0.36, 3);
  });

  it('places weak decisions into their class by their margin, not all at the edge', () => {
    // argmax positive with expectations below 0.2: margins 0.05, 0.1, 0.3
    const values = [
      [0.3, 0.325, 0.375],
      [0.3, 0.3, 0.4],
      [0.35, 0.0, 0.65],
    ].map((p) => sentimentValue(heads, p, TEXT));
    expect(values[0]).toBeCloseTo(0.205, 3);
    expect(values[1]).toBeCloseTo(0.21, 3);
    expect(values[2]).toBeCloseTo(0.23, 3);
    for (const v of values) expect(polarityOf(v)).toBe('positive');
    // and the mirror for negative
    expect(sentimentValue(heads, [0.4, 0.3, 0.3], TEXT)).toBeCloseTo(-0.21, 3);
  });

  it('brings a sure neutral with a lopsided expectation toward 0', () => {
    // argmax neutral (margin 0.05), expectation 0.24
    const v = sentimentValue(heads, [0.05, 0.5, 0.45], TEXT);
    expect(v).toBeCloseTo(0.185, 3);
    expect(polarityOf(v)).toBe('neutral');
  });
});
