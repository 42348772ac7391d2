/**
 * Delay before the next attempt after `failedAttempt` (1-based) failed, or `null` when the
 * schedule is exhausted: with 5 delays there are 6 attempts in all. Pure and deterministic, so
 * the delivery workflow can use it; the service re-exports it from src/webhooks/retry-schedule.ts.
 */
export function nextRetryDelayMs(failedAttempt: number, scheduleMs: readonly number[]): number | null {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new Error('attempt numbers start at 1');
  return failedAttempt <= scheduleMs.length ? scheduleMs[failedAttempt - 1] : null;
}
