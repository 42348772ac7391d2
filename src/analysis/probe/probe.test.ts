import { beforeAll, describe, expect, it } from 'vitest';
import { waitForHeads } from '../../../test/support/heads-ready.js';
import { defaultHeadsCacheDir } from '../../config.js';
import { createAnalyzer } from '../analyze.js';
import { createLocalEmbedder } from '../embedder.js';
import { CAPABILITIES } from './capabilities.js';
import { formatProbe, runProbe } from './runner.js';

/**
 * Quality floors of the behavioural probe: the highest failure rate each capability may have on the
 * run's heads (the local model): the rate measured when the floor was set, rounded up to the next
 * multiple of 0.05 strictly above it (a rate of 0 allows three failures in 60, not none). Tighten
 * them as the model improves; a rate over its floor means a change made a capability worse. With 60
 * cases a capability's rate moves by about ±0.06 between seeds: a floor catches a real regression.
 */
const PROBE_FLOORS: Record<string, number> = {
  // Measured on the v4 heads (corpus of 5,408 messages, HEADS_VERSION 16: the denial veto, "!" as
  // intensity), seed 45, 60 cases each; each floor is the next 0.05 above its rate. HEADS_VERSION 14
  // (no veto, "!" a bare cue) measured negated churn 0.267, refund 0.533, upgrade 0.617, caps and
  // !!! 0.267, overall 0.176. The v3 heads (HEADS_VERSION 9) measured, in this order: 0.033 0.100
  // 0.317 0.550 0.650 1.000 0.817 0.567 0.533 0.117 0.550 0.217 0.300 0.133 0.117 0.167 0.367 0.433
  // 0.033 0.000 0.233 0.100 0.050 0.083 0.017 0.117 0.033, overall 0.283.
  'clear positive': 0.05,
  'clear negative': 0.1,
  'negated negative': 0.2,
  'negated positive': 0.55,
  'negated churn': 0.15,
  'negated refund': 0.1,
  'negated upgrade': 0.3,
  'negated recommend': 0.2,
  'contrast ending negative': 0.4,
  'contrast ending positive': 0.15,
  sarcasm: 0.6,
  'polite complaint': 0.2,
  'factual complaint': 0.2,
  'churn statement': 0.25,
  'polite churn notice': 0.15,
  'intensifier words': 0.15,
  'caps and !!!': 0.05,
  elongation: 0.15,
  'add negative sentence': 0.05,
  'add positive sentence': 0.05,
  'add churn sentence': 0.25,
  'leading @handle': 0.05,
  'trailing URL': 0.05,
  hashtags: 0.1,
  emoji: 0.05,
  'case change': 0.1,
  'typos and abbreviations': 0.05,
  overall: 0.15,
};

describe('the behavioural probe on the local model', () => {
  // The run trains its heads in the background (test/global-setup-heads.ts).
  beforeAll(() => waitForHeads(), 900_000);

  it('keeps every capability at or under its failure-rate floor', { timeout: 600_000 }, async () => {
    const analyzer = await createAnalyzer(createLocalEmbedder(), { cacheDir: defaultHeadsCacheDir() });
    const report = await runProbe((texts) => analyzer.analyzeBatch(texts));
    console.log(formatProbe(report));
    // Every capability has a floor, so a new capability cannot go unchecked.
    expect(Object.keys(PROBE_FLOORS).sort()).toEqual([...CAPABILITIES.map((c) => c.name), 'overall'].sort());
    // All the capabilities over their floor at once, with their rates.
    const over = report.capabilities
      .filter((c) => !(c.rate <= PROBE_FLOORS[c.name]))
      .map((c) => `${c.name}: ${c.rate.toFixed(3)} > ${PROBE_FLOORS[c.name]}`);
    expect(over).toEqual([]);
    expect(report.rate).toBeLessThanOrEqual(PROBE_FLOORS.overall);
  });
});
