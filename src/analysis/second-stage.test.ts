import { describe, expect, it } from 'vitest';
import { bestThreshold, logisticFit, thresholdForPrecision } from './second-stage.js';

// Scores of 10 messages, the first 5 churn: precision at each cut is what the test reads.
const scores = [0.95, 0.9, 0.7, 0.55, 0.3, 0.85, 0.6, 0.4, 0.2, 0.1];
const gold = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0];

describe('thresholdForPrecision', () => {
  it('takes the best recall whose precision reaches the target', () => {
    // Cut in (0.6, 0.7]: 3 of 4 flagged are churn (0.75, recall 0.6); in (0.4, 0.55]: 4 of 6
    // (0.667, recall 0.8); in (0.2, 0.3]: 5 of 8 (0.625, recall 1).
    const precise = thresholdForPrecision(scores, gold, 0.75);
    expect(precise).toBeGreaterThan(0.6);
    expect(precise).toBeLessThanOrEqual(0.7);
    const looser = thresholdForPrecision(scores, gold, 0.65);
    expect(looser).toBeGreaterThan(0.4);
    expect(looser).toBeLessThanOrEqual(0.55);
    expect(thresholdForPrecision(scores, gold, 0.6)).toBeLessThanOrEqual(0.3);
    // F1 alone would flag more: its threshold is lower than the precise one.
    expect(bestThreshold(scores, gold, 1)).toBeLessThan(precise);
  });

  it('falls back to the most precise threshold when none reaches the target', () => {
    const t = thresholdForPrecision([0.9, 0.8, 0.7], [0, 1, 0], 0.99);
    expect(t).toBeGreaterThan(0.7);
    expect(t).toBeLessThanOrEqual(0.8);
  });
});

describe('bestThreshold', () => {
  // Cuts in (0.2, 0.3]: 5 of 8 flagged right (F1 0.769); in (0.4, 0.55]: 4 of 6 (F1 0.727); in
  // (0.6, 0.7]: 3 of 4 (F1 0.667).
  it('takes the lowest threshold with the best F1', () => {
    const t = bestThreshold(scores, gold, 1);
    expect(t).toBeGreaterThan(0.2);
    expect(t).toBeLessThanOrEqual(0.3);
  });

  it('with a tolerance, takes the highest threshold whose F1 is within it of the best', () => {
    const t = bestThreshold(scores, gold, 1, 0.05);
    expect(t).toBeGreaterThan(0.4);
    expect(t).toBeLessThanOrEqual(0.55);
    expect(bestThreshold(scores, gold, 1, 0.11)).toBeGreaterThan(0.6);
    expect(bestThreshold(scores, gold, 1, 0.11)).toBeLessThanOrEqual(0.7);
  });
});

describe('logisticFit', () => {
  it('weighs the informative input and not the noise', () => {
    const rows = Array.from({ length: 200 }, (_, i) => [i % 2 ? 2 : -2, ((i * 37) % 11) / 11 - 0.5]);
    const w = logisticFit(
      rows,
      rows.map((_, i) => i % 2),
    );
    expect(w).toHaveLength(3);
    expect(w[0]).toBeGreaterThan(1);
    expect(Math.abs(w[1])).toBeLessThan(0.5);
  });
});
