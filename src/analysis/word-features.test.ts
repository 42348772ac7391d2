import { describe, expect, it } from 'vitest';
import { loadCorpus } from './corpus.js';
import { featureIndex, featureKeys, WORD_FEATURE_BITS, wordFeatures, wordTokens } from './word-features.js';

describe('wordTokens', () => {
  it('marks the words after a negator up to the next punctuation', () => {
    expect(wordTokens('The app is not working, but support is great!')).toEqual([
      'the',
      'app',
      'is',
      'not',
      'NOT_working',
      'but',
      'support',
      'is',
      'great',
    ]);
  });

  it('reads contractions with either apostrophe, and other languages', () => {
    expect(wordTokens("I don't like it. Fine")).toEqual(['i', 'dont', 'NOT_like', 'NOT_it', 'fine']);
    expect(wordTokens('It isn’t bad')).toEqual(['it', 'isnt', 'NOT_bad']);
    expect(wordTokens('It is far from smooth')).toEqual(['it', 'is', 'far', 'from', 'NOT_smooth']);
    expect(wordTokens('By far the best')).toEqual(['by', 'far', 'the', 'best']);
    expect(wordTokens('Ça ne marche pas; merci')).toEqual(['ça', 'ne', 'NOT_marche', 'pas', 'merci']);
  });
});

describe('wordFeatures', () => {
  it('is a unit-length row of sorted, unique hashed indices, the same on every call', () => {
    const a = wordFeatures('Support never answers my emails.');
    expect(a).toEqual(wordFeatures('Support never answers my emails.'));
    expect([...a.index].every((v, i, all) => i === 0 || all[i - 1] < v)).toBe(true);
    expect(Math.max(...a.index)).toBeLessThan(2 ** WORD_FEATURE_BITS);
    expect([...a.value].reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 5);
  });

  it('tells a negated word from the word', () => {
    const has = (text: string) => new Set(wordFeatures(text).index);
    const bad = has('bad');
    const notBad = has('not bad');
    // The characters of "bad" are shared; the word feature is not.
    expect([...notBad].filter((i) => !bad.has(i)).length).toBeGreaterThan(1);
    expect([...bad].filter((i) => !notBad.has(i)).length).toBeGreaterThan(0);
  });
});

describe('the hashed feature table', () => {
  it('gives most of the training texts’ feature keys a bucket of their own (heads v27: 48.9% shared one at 2^18)', () => {
    const corpus = loadCorpus();
    const keys = new Set<string>();
    for (const text of [...corpus.items.map((it) => it.text), ...corpus.sarcasm.map((ex) => ex.text)])
      for (const key of featureKeys(text)) keys.add(key);
    const perBucket = new Map<number, number>();
    for (const key of keys) perBucket.set(featureIndex(key), (perBucket.get(featureIndex(key)) ?? 0) + 1);
    const shared = [...keys].filter((key) => perBucket.get(featureIndex(key))! > 1).length;
    // Measured at 2^20 on 2026-12-05; a new writer's unseen words land on a trained weight about as often.
    expect(shared / keys.size).toBeLessThan(0.2);
  });
});
