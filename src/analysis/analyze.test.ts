import { describe, expect, it } from 'vitest';
import { createAnalyzer, INTENTIONS, TOPICS } from './analyze.js';
import { createLocalEmbedder, type Embedder } from './embedder.js';
import { lexiconScore } from './lexicon.js';

/** Counts calls to a real embedder, to prove a batch costs one call. */
function counting(inner: Embedder) {
  const calls: number[] = [];
  const embedder: Embedder = {
    name: inner.name,
    dimensions: inner.dimensions,
    embed: (t) => (calls.push(t.length), inner.embed(t)),
  };
  return { embedder, calls };
}

describe('analysis with the local Universal Sentence Encoder', () => {
  it('analyses a batch with one embedding call into valid labels, sentiment and unit vectors', async () => {
    const { embedder, calls } = counting(createLocalEmbedder());
    const analyzer = await createAnalyzer(embedder);
    const before = calls.length;
    const texts = [
      "I want to cancel my subscription, it's too expensive.",
      'Love the new dashboard, it is fast and clear. Great job!',
      'How do I reset my password?',
      '',
    ];
    const out = await analyzer.analyzeBatch(texts);
    expect(calls.slice(before)).toEqual([4]);
    for (const a of out) {
      expect(a.sentiment).toBeGreaterThanOrEqual(-1);
      expect(a.sentiment).toBeLessThanOrEqual(1);
      expect(a.topics.every((t) => TOPICS.includes(t))).toBe(true);
      expect(a.intentions.every((t) => INTENTIONS.includes(t))).toBe(true);
      expect(a.embedding).toHaveLength(512);
      expect(Math.hypot(...a.embedding)).toBeCloseTo(1, 4);
    }
    expect(out[0].sentiment).toBeLessThan(-0.2);
    expect(out[0].intentions).toEqual(expect.arrayContaining(['churn', 'price_sensitive']));
    expect(out[0].topics).toContain('pricing');
    expect(out[1].sentiment).toBeGreaterThan(0.2);
    expect(out[2].intentions).toContain('support_request');
  });
});

describe('lexicon', () => {
  it('catches domain negatives and negation', () => {
    expect(lexiconScore('The app keeps crashing').score).toBeLessThan(-0.3);
    expect(lexiconScore('This is not good').score).toBeLessThan(0);
    expect(lexiconScore('It works great').score).toBeGreaterThan(0.3);
    expect(lexiconScore('The meeting is on Monday')).toEqual({ score: 0, hits: 0 });
  });
});
