import { ApplicationFailure } from '@temporalio/common';

/**
 * Delay before the next attempt after `failedAttempt` (1-based) failed, or `null` when the
 * schedule is exhausted: with 5 delays there are 6 attempts in all. Pure and deterministic, so
 * the delivery workflow can use it; the service re-exports it from src/webhooks/retry-schedule.ts.
 *
 * Input that can never work fails the workflow with a NON-retryable failure: a plain Error would
 * fail the workflow task, which Temporal retries forever with the same input.
 */
export function nextRetryDelayMs(failedAttempt: number, scheduleMs: readonly number[]): number | null {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw ApplicationFailure.nonRetryable(`attempt numbers start at 1 (got ${failedAttempt})`, 'InvalidRetryInput');
  }
  if (!scheduleMs.every((d) => Number.isFinite(d) && d >= 0)) {
    throw ApplicationFailure.nonRetryable(
      `retry delays must be finite and non-negative (got ${scheduleMs.join(',')})`,
      'InvalidRetryInput',
    );
  }
  return failedAttempt <= scheduleMs.length ? scheduleMs[failedAttempt - 1] : null;
}

/**
 * How long the delivery workflow sleeps after a failed attempt that has a next one: the schedule's
 * delay, or the receiver's Retry-After (already capped at 24 h) when that is longer, or until the
 * turn booked for the next attempt to a failing webhook (src/fairness/failing-turns.ts) when that
 * is later still. The attempt records the same figure on its row as `next_attempt_at`
 * (src/webhooks/deliver-attempt.ts), with the delay the workflow gave it (`nextDelayMs`).
 */
export function retryWaitMs(
  delayMs: number,
  retryAfterMs: number | null | undefined,
  nextTurnInMs: number | undefined,
): number {
  return Math.max(delayMs, retryAfterMs ?? 0, nextTurnInMs ?? 0);
}
