import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { nextAttemptAt, nextRetryDelayMs, parseRetrySchedule, type RecordedAttempt } from './retry-schedule.js';

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

describe('nextAttemptAt', () => {
  const at = new Date('2026-03-01T12:00:00.250Z');
  const failed = (attempt: number, more: Partial<RecordedAttempt> = {}): RecordedAttempt => ({
    attempt,
    status: 'failed',
    final: false,
    retry_after_ms: null,
    created_at: at,
    ...more,
  });
  const schedule = [1_000, 2_000, 5_000];

  it("is the row's time plus the schedule's delay after that attempt", () => {
    expect(nextAttemptAt(failed(1), schedule)).toEqual(new Date('2026-03-01T12:00:01.250Z'));
    expect(nextAttemptAt(failed(3), schedule)).toEqual(new Date('2026-03-01T12:00:05.250Z'));
  });

  it("waits for the receiver's Retry-After when it is longer than the delay, not when shorter", () => {
    expect(nextAttemptAt(failed(1, { retry_after_ms: 3_000 }), schedule)).toEqual(new Date('2026-03-01T12:00:03.250Z'));
    expect(nextAttemptAt(failed(3, { retry_after_ms: 3_000 }), schedule)).toEqual(new Date('2026-03-01T12:00:05.250Z'));
  });

  it('is null after a success, a final attempt, or an attempt the schedule has no delay after', () => {
    expect(nextAttemptAt(failed(1, { status: 'success' }), schedule)).toBeNull();
    expect(nextAttemptAt(failed(2, { final: true }), schedule)).toBeNull();
    expect(nextAttemptAt(failed(4), schedule)).toBeNull();
  });
});
