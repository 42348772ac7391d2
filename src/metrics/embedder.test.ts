import { describe, expect, it } from 'vitest';
import type { Embedder } from '../analysis/embedder.js';
import { instrumentEmbedder } from './embedder.js';
import { embedderCallTexts, embedderCalls, embedderQueue } from './registry.js';

/** The value of one labelled series of a prom-client metric (0 when it has none yet). */
async function value(
  metric: { get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }> },
  labels: Record<string, string>,
  metricName?: string,
): Promise<number> {
  const { values } = await metric.get();
  const found = values.find(
    (v) =>
      (!metricName || v.metricName === metricName) &&
      Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return found?.value ?? 0;
}

/**
 * The wrapped embedder is a stand-in whose calls the test settles by hand: what is under test is
 * the instrumentation around any embedder (the real ones are counted in test/e2e/metrics.test.ts).
 */
describe('instrumentEmbedder', () => {
  function settleable(name: string) {
    const pending: { resolve(v: number[][]): void; reject(e: Error): void }[] = [];
    const inner: Embedder = {
      name,
      dimensions: 2,
      embed: () => new Promise((resolve, reject) => pending.push({ resolve, reject })),
    };
    return { embedder: instrumentEmbedder(inner), pending };
  }

  it('counts a call waiting in the queue depth until it settles, then by result with its texts', async () => {
    const provider = 'unit-ok';
    const { embedder, pending } = settleable(`${provider}:model`);
    const call = embedder.embed(['a', 'b', 'c']);
    expect(await value(embedderQueue, { provider })).toBe(1);
    pending[0].resolve([[1, 0]]);
    await call;
    expect(await value(embedderQueue, { provider })).toBe(0);
    expect(await value(embedderCalls, { provider, result: 'ok' })).toBe(1);
    expect(await value(embedderCallTexts, { provider }, 'profiling_embedder_call_texts_sum')).toBe(3);
  });

  it('counts a failed call as an error and empties the queue depth', async () => {
    const provider = 'unit-error';
    const { embedder, pending } = settleable(`${provider}:model`);
    const call = embedder.embed(['a']);
    expect(await value(embedderQueue, { provider })).toBe(1);
    pending[0].reject(new Error('model thread died'));
    await expect(call).rejects.toThrow('model thread died');
    expect(await value(embedderQueue, { provider })).toBe(0);
    expect(await value(embedderCalls, { provider, result: 'error' })).toBe(1);
    expect(await value(embedderCalls, { provider, result: 'ok' })).toBe(0);
  });
});
