import { describe, expect, it } from 'vitest';
import { knownWord } from './lexicon-words.js';
import { lastClause, lexiconPriors, PRIOR_NAMES, understatement } from './priors.js';

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
    expect(lastClause('Brilliant, the kanban board is down again.')).toBe('the kanban board is down again.');
    expect(lastClause('Thanks a lot! Lost my changes twice today')).toBe('Lost my changes twice today');
    // An opening of more than three words is not an exclamation.
    expect(lastClause('The new board is nice, and fast too')).toBe('The new board is nice, and fast too');
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

describe('understatement', () => {
  it('counts rated words a negator denies, near it', () => {
    expect(understatement('the mobile app was never great')).toEqual([1, 0]);
    expect(understatement('the audit log is not awkward at all')).toEqual([0, 1]);
    expect(understatement('great app, no complaints')).toEqual([0, 1]);
    expect(understatement('it is great and fast')).toEqual([0, 0]);
    // Too far from its negator: "not" denies the saying, not the praise.
    expect(understatement('I would not say that after a month it is great')).toEqual([0, 0]);
  });
});
