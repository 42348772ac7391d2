import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from './embedder.js';

const TEXTS = [
  'ok',
  'The dashboard takes forever to load since the last update, and exports time out.',
  'Please add dark mode.',
  'We were charged twice this month; can someone refund the second payment? Our finance team is asking and I have no answer for them yet.',
  'love it',
  'How do I connect the Slack integration?',
  'Cancelling at the end of the month, it is too expensive for what we use.',
  '',
  'The iPhone app crashes when I open a report.',
];

describe('local embedder pool', () => {
  it(
    'gives every text the vector it gets on its own, in input order, whatever the threads and call size',
    { timeout: 120_000 },
    async () => {
      const single = createLocalEmbedder({ threads: 1, callSize: 1 });
      const pooled = createLocalEmbedder({ threads: 2, callSize: 3 });
      const [a, b] = [await single.embed(TEXTS), await pooled.embed(TEXTS)];
      expect(b).toHaveLength(TEXTS.length);
      for (let i = 0; i < TEXTS.length; i++) {
        expect(b[i]).toHaveLength(512);
        const diff = Math.max(...a[i].map((x, k) => Math.abs(x - b[i][k])));
        expect(diff, `text ${i}`).toBeLessThan(1e-5);
      }
      // Different texts stay different (the order is not scrambled).
      const dot = (x: number[], y: number[]) => x.reduce((s, v, k) => s + v * y[k], 0);
      expect(dot(b[2], a[2])).toBeGreaterThan(0.9999);
      expect(dot(b[2], a[6])).toBeLessThan(0.9);
    },
  );
});

describe('local embedder lanes', () => {
  it("serves a second tenant's call next, not after the first tenant's whole queue", { timeout: 120_000 }, async () => {
    const one = createLocalEmbedder({ threads: 1, callSize: 8 });
    await one.embed(['warm up'], 'a');
    const done: string[] = [];
    const busy = Array.from({ length: 12 }, (_, i) =>
      one.embed([TEXTS[i % TEXTS.length]], 'busy').then(() => done.push(`busy-${i}`)),
    );
    const other = one.embed(['How do I export my data?'], 'other').then(() => done.push('other'));
    await Promise.all([...busy, other]);
    // Round-robin per lane: before it, at most the two calls already at the thread
    // (CALLS_AT_THREAD) and the busy lane's turn, which came first (first come, first served
    // would make it the 13th).
    expect(done.indexOf('other')).toBeLessThanOrEqual(3);
    expect(done.filter((d) => d.startsWith('busy'))).toEqual(Array.from({ length: 12 }, (_, i) => `busy-${i}`));
  });
});

describe('local embedder pool feeding its threads', () => {
  it('posts a thread its next call before the current one returns', { timeout: 30_000 }, async () => {
    // This thread answers only when it holds two calls: one call at a time would wait forever.
    const pairing = createLocalEmbedder({
      threads: 1,
      callSize: 1,
      threadScript: new URL('../../test/support/pairing-embed-thread.mjs', import.meta.url),
    });
    const answered = await Promise.race([
      pairing.embed(['first', 'second']).then((v) => v.length),
      new Promise<string>((r) => setTimeout(() => r('no answer in 10 s'), 10_000).unref()),
    ]);
    expect(answered).toBe(2);
  });
});

describe('local embedder pool when a thread dies', () => {
  it(
    'fails the pending calls of that chunk, then embeds the next call on a new thread with the same vectors',
    { timeout: 120_000 },
    async () => {
      const pooled = createLocalEmbedder({
        threads: 2,
        callSize: 2,
        threadScript: new URL('../../test/support/crashing-embed-thread.mjs', import.meta.url),
      });
      const reference = await createLocalEmbedder({ threads: 1, callSize: 1 }).embed(TEXTS);
      // Warm: both threads have their model loaded.
      expect(await pooled.embed(TEXTS)).toHaveLength(TEXTS.length);
      // One call of this chunk kills its thread: the chunk's embed rejects (the activity retries it).
      await expect(pooled.embed([...TEXTS, '__crash_thread__'])).rejects.toThrow(/thread exited with code 3/);
      // The next round gets a fresh thread and the right vectors.
      const again = await pooled.embed(TEXTS);
      for (let i = 0; i < TEXTS.length; i++) {
        expect(Math.max(...reference[i].map((x, k) => Math.abs(x - again[i][k]))), `text ${i}`).toBeLessThan(1e-5);
      }
    },
  );
});
