import { describe, expect, it } from 'vitest';
// The console's own module (plain browser JavaScript, no DOM needed).
import { PAD_SECONDS, timeRange } from '../../../console/time-range.js';

describe("the console's sentiment chart: its time axis", () => {
  it('keeps messages that share one time on an axis of two hours, not years', () => {
    const t = Date.parse('2026-12-02T10:00:00Z') / 1000;
    expect(timeRange(t, t)).toEqual([t - PAD_SECONDS, t + PAD_SECONDS]);
    expect(timeRange(t, t + 30)).toEqual([t - PAD_SECONDS, t + 30 + PAD_SECONDS]);
  });
  it('leaves a real span as it is', () => {
    expect(timeRange(1000, 90_000)).toEqual([1000, 90_000]);
  });
});
