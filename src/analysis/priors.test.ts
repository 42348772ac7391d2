import { describe, expect, it } from 'vitest';
import { knownWord, lastClause, lexiconPriors, PRIOR_NAMES } from './priors.js';

describe('lexicon priors', () => {
  it('gives one bounded value per named prior, signed like the text', () => {
    const good = lexiconPriors('I love it, the support team is wonderful');
    const bad = lexiconPriors('terrible update, everything is broken and I hate it');
    expect(good).toHaveLength(PRIOR_NAMES.length);
    for (const v of [...good, ...bad]) expect(Math.abs(v)).toBeLessThanOrEqual(1);
    expect(good[0]).toBeGreaterThan(0.5);
    expect(bad[0]).toBeLessThan(-0.5);
    expect(lexiconPriors('the invoice is attached')).toEqual([0, 0, 0, 0, 0]);
  });

  it('reads the clause after the last contrast marker', () => {
    expect(lastClause('loved it until the last update broke everything')).toBe(' the last update broke everything');
    expect(lastClause('slow at first, but now it is great')).toBe(' it is great');
    // A marker with less than two words after it: the whole text.
    expect(lastClause('great, but')).toBe('great, but');
    const p = lexiconPriors('I loved it, but the last update is awful');
    expect(p[PRIOR_NAMES.indexOf('vader_last_clause')]).toBeLessThan(0);
  });

  it('knows the lexicons words', () => {
    expect(knownWord('love')).toBe(true);
    expect(knownWord('invoice')).toBe(false);
  });
});
