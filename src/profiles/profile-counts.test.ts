import { describe, expect, it } from 'vitest';
import { CHURN_BINS, summedChurnBins } from './profile-counts.js';

const ulps = (x: number, k: number) => {
  const f = new Float64Array([x]);
  new BigInt64Array(f.buffer)[0] += BigInt(k);
  return f[0];
};
const bin = (score: number) => Math.floor(score * CHURN_BINS);

describe('churn bins', () => {
  // countSql relies on this: rows binned across an edge are only ever scores just below it.
  it('never bins a score above an edge into the bin below it', () => {
    const wrong: string[] = [];
    for (let b = 1; b <= CHURN_BINS; b++) {
      for (let k = 1; k <= 1_000; k++) if (bin(ulps(b / CHURN_BINS, k)) < b) wrong.push(`${b} + ${k} ulps`);
    }
    expect(wrong).toEqual([]);
  });

  it('does bin some scores just below an edge into the bin above it', () => {
    const crossing = Array.from({ length: CHURN_BINS }, (_, i) => ulps((i + 1) / CHURN_BINS, -1)).filter(
      (s, i) => bin(s) >= i + 1,
    );
    expect(crossing).toContain(0.09999999999999999);
  });

  it('sums the bins inside the bounds', () => {
    expect(summedChurnBins()).toEqual([-1, 100]);
    expect(summedChurnBins(0.9)).toEqual([90, 100]);
    expect(summedChurnBins(0.905)).toEqual([91, 100]);
    expect(summedChurnBins(undefined, 0.1)).toEqual([0, 9]);
    expect(summedChurnBins(undefined, 1)).toEqual([0, 100]);
    expect(summedChurnBins(0.5, 0.6)).toEqual([50, 59]);
    expect(summedChurnBins(0.505, 0.507)).toEqual([51, 49]);
  });
});
