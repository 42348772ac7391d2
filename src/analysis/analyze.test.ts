import { beforeAll, describe, expect, it } from 'vitest';
import { waitForHeads } from '../../test/support/heads-ready.js';
import { defaultHeadsCacheDir } from '../config.js';
import { createAnalyzer, INTENTIONS, TOPICS } from './analyze.js';
import { createLocalEmbedder, type Embedder } from './embedder.js';

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
  // The run trains its heads in the background (test/global-setup-heads.ts).
  beforeAll(() => waitForHeads(), 900_000);

  it(
    'analyses a batch with one embedding call into valid labels, sentiment and unit vectors',
    { timeout: 600_000 },
    async () => {
      const { embedder, calls } = counting(createLocalEmbedder());
      // The machine's heads cache, as a worker uses it: trained once per corpus, then loaded.
      const analyzer = await createAnalyzer(embedder, { cacheDir: defaultHeadsCacheDir() });
      const before = calls.length;
      const texts = [
        "I want to cancel my subscription, it's too expensive.",
        'Love the new dashboard, it is fast and clear. Great job!',
        'How do I reset my password?',
        '',
        'We have used the planner for two years and the team likes the board view a lot. The new pricing is another story though. Our contract ends in March and we will not renew it.',
      ];
      const out = await analyzer.analyzeBatch(texts);
      // One call, one text per message: every message is read whole (heads.ts, stackPieces).
      expect(calls.slice(before)).toEqual([5]);
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
      expect(out[4].intentions).toContain('churn');
      // A churn reading names words of its own message; a message not read as churn names none.
      expect(out[0].churnWords.length).toBeGreaterThan(0);
      // (Words as the reader tokenises them: lower case, apostrophes dropped, a negated word as "not …".)
      const said = texts[0].toLowerCase().replace(/['’]/g, '');
      for (const w of out[0].churnWords)
        for (const part of w.replace(/\bnot /g, '').split(' ')) expect(said).toContain(part);
      expect(out[2].churnWords).toEqual([]);
    },
  );
  it('takes churn from a statement of staying and upgrade from an upgrade declined, after the heads (heads.ts)', async () => {
    const analyzer = await createAnalyzer(createLocalEmbedder(), { cacheDir: defaultHeadsCacheDir() });
    const texts = [
      // (Heads trained with the seventh stop's twins no longer flag "I've decided to renew my gym
      // membership." even without the veto; this line they still do, measured.)
      "We've decided to renew our subscription for another year.",
      "Thanks for the upgrade offer, but we'll remain on our current plan.",
      // A form only the veto reads (intent-scope.ts `wide`): fails if the veto reads the heads' counts.
      'I refuse to upgrade to the Max plan.',
    ];
    const on = await analyzer.analyzeBatch(texts);
    expect(on[0].intentions).not.toContain('churn');
    expect(on[1].intentions).not.toContain('upgrade');
    expect(on[2].intentions).not.toContain('upgrade');
    // Without the vetoes the heads flag both (measured): the test would fail if the wiring went.
    const options = analyzer.heads.options;
    analyzer.heads.options = { ...options, denialVeto: false };
    const off = await analyzer.analyzeBatch(texts);
    analyzer.heads.options = options;
    expect(off[0].intentions).toContain('churn');
    expect(off[1].intentions).toContain('upgrade');
    expect(off[2].intentions).toContain('upgrade');
  });
});
