import type { Db } from '../db/knex.js';
import { isDatabaseDown } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { firstAttemptRecorded } from '../outbox/outbox.js';

/** An attempt's row in webhook_deliveries, written once per attempt key (`<workflow id>:<attempt>`). */

/** Which attempt a row is of. */
export interface AttemptRef {
  workflowId: string;
  eventId: number;
  webhookId: number;
  attempt: number;
}

/**
 * How long an attempt that was already sent keeps trying to record its outcome while the database
 * is away. The workflow gives the activity the HTTP timeout plus 30 s, so this fits after the POST.
 */
export const RECORD_RETRY_MS = 20_000;

/**
 * Records an attempt that was already POSTed. Throwing here would make Temporal retry the activity
 * and POST the event again, so a database outage is waited out (within RECORD_RETRY_MS) instead.
 */
export async function recordSent(
  deps: { db: Db; log: Logger },
  input: AttemptRef,
  attemptKey: string,
  row: Parameters<typeof record>[3],
): Promise<void> {
  const deadline = Date.now() + RECORD_RETRY_MS;
  for (let waitMs = 250; ; waitMs = Math.min(waitMs * 2, 2_000)) {
    try {
      return await record(deps.db, input, attemptKey, row);
    } catch (err) {
      if (!isDatabaseDown(err) || Date.now() + waitMs > deadline) throw err;
      deps.log.warn('webhook attempt sent but not recorded yet (database unavailable); retrying the write', {
        event_id: input.eventId,
        attempt: input.attempt,
      });
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

export async function record(
  db: Db,
  input: AttemptRef,
  attemptKey: string,
  row: {
    status: string;
    status_code: number;
    response_body: string;
    duration_ms: number;
    final?: boolean;
    retry_after_ms?: number | null;
    /** What was sent, signatures redacted; absent for an attempt that was not sent. */
    request_headers?: Record<string, string>;
    /** After a failed attempt with a next one: how long after this row the workflow retries. */
    next_attempt_in_ms?: number | null;
  },
): Promise<void> {
  const { next_attempt_in_ms: nextInMs, ...columns } = row;
  await db('webhook_deliveries')
    .insert({
      event_id: input.eventId,
      webhook_id: input.webhookId,
      attempt: input.attempt,
      attempt_key: attemptKey,
      ...columns,
      // PostgreSQL text cannot hold NUL bytes a receiver might send back.
      response_body: row.response_body.replaceAll('\u0000', ''),
      request_headers: row.request_headers ? JSON.stringify(row.request_headers) : null,
      // From the row's own created_at (the same now()), so the two differ by exactly the wait.
      next_attempt_at: nextInMs == null ? null : db.raw(`now() + ? * interval '1 millisecond'`, [nextInMs]),
    })
    .onConflict('attempt_key')
    .ignore();
  if (input.attempt === 1)
    await firstAttemptRecorded(db, {
      webhookId: input.webhookId,
      eventId: input.eventId,
      workflowId: input.workflowId,
    });
}
