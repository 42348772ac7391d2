import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportProgress } from './progress.js';

describe('progress lines of a long first-run step', () => {
  afterEach(() => vi.useRealTimers());

  it('says what, for how long so far and how long it usually takes, until stopped', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const stop = reportProgress((m) => lines.push(m), 'building the Temporal CLI', '5 to 9 min on 2 cores', 30_000);
    vi.advanceTimersByTime(65_000);
    stop();
    vi.advanceTimersByTime(120_000);
    expect(lines).toEqual([
      'still building the Temporal CLI: 30 s so far (usually 5 to 9 min on 2 cores)',
      'still building the Temporal CLI: 60 s so far (usually 5 to 9 min on 2 cores)',
    ]);
  });
});
