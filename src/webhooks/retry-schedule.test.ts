import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { parseRetrySchedule } from '../durations.js';
import { nextRetryDelayMs, retryWaitMs } from './retry-schedule.js';

describe('retry schedule', () => {
  // The schedule the service ships with: the configuration's default, not a copy of it.
  const schedule = loadConfig({}).webhooks.retryScheduleMs;

  it("ships the contract's schedule by default: 1 min, 5 min, 30 min, 2 h, 24 h", () => {
    expect(schedule).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 86_400_000]);
    expect(parseRetrySchedule('1m,5m,30m,2h,24h')).toEqual(schedule);
  });

  it('waits the scheduled delay after attempts 1 to 5 and gives up after attempt 6', () => {
    expect([1, 2, 3, 4, 5].map((n) => nextRetryDelayMs(n, schedule))).toEqual(schedule);
    expect(nextRetryDelayMs(6, schedule)).toBeNull();
  });

  it('rejects malformed schedules and attempt numbers', () => {
    expect(() => parseRetrySchedule('1m,,5m')).toThrow();
    expect(() => parseRetrySchedule('5 minutes')).toThrow(/not a duration/);
    expect(() => nextRetryDelayMs(0, schedule)).toThrow();
  });

  it('fails input that can never work with a non-retryable ApplicationFailure (not a workflow task retried forever)', () => {
    const failure = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err;
      }
      return undefined;
    };
    for (const err of [
      failure(() => nextRetryDelayMs(0, schedule)),
      failure(() => nextRetryDelayMs(1.5, schedule)),
      failure(() => nextRetryDelayMs(1, [NaN])),
    ]) {
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
      expect((err as ApplicationFailure).type).toBe('InvalidRetryInput');
    }
  });
});

describe("retryWaitMs (the workflow's sleep after a failure, recorded as next_attempt_at)", () => {
  it("is the schedule's delay without Retry-After or a turn", () => {
    expect(retryWaitMs(1_000, null, undefined)).toBe(1_000);
  });

  it("waits for the receiver's Retry-After when it is longer than the delay, not when shorter", () => {
    expect(retryWaitMs(1_000, 3_000, undefined)).toBe(3_000);
    expect(retryWaitMs(5_000, 3_000, undefined)).toBe(5_000);
  });

  it("waits until a failing webhook's booked turn when that is later still", () => {
    expect(retryWaitMs(1_000, 3_000, 4_500)).toBe(4_500);
    expect(retryWaitMs(1_000, null, 0)).toBe(1_000);
  });
});
