import { describe, expect, it } from 'vitest';
import { loadCorpus } from './corpus.js';
import { CUE_ALTERNATIVES, CUES, cuePattern } from './cues.js';

describe('domain cues', () => {
  const texts = loadCorpus().items.map((it) => it.text);

  it('keeps only alternatives that at least two corpus lines use', () => {
    const rare = Object.entries(CUE_ALTERNATIVES).flatMap(([group, alts]) =>
      alts
        .map((a) => ({
          cue: `${group}: ${a}`,
          // `?` is matched anywhere, not as a word: cuePattern(['\\?']) alone would match every line.
          lines: texts.filter((t) => (a === '\\?' ? t.includes('?') : cuePattern([a]).test(t))).length,
        }))
        .filter((c) => c.lines < 2),
    );
    expect(rare).toEqual([]);
  });

  it('matches whole words, and a question mark anywhere', () => {
    expect(CUES.billing.test('Where is my invoice?')).toBe(true);
    expect(CUES.billing.test('the invoicelike thing')).toBe(false);
    expect(CUES.support_request.test('anyone?')).toBe(true);
    expect(CUES.churn.test('we will not renew in March')).toBe(true);
    expect(CUES.churn.test('cancel the add-on please')).toBe(false);
  });
});
