import type { AttemptResult } from './http-attempt.js';

/**
 * What an attempt keeps of the receiver's answer (its delivery row, the workflow's history).
 *
 * For an ordinary event: the first 4 KB of the body, or the reason there was none (a redirect's
 * Location included), which is what an operator needs to debug a failing receiver.
 *
 * For an event about an erased user (`reason: 'erased'`, the `user_removed` an erasure emits),
 * only the status: a receiver's body or Location can echo anything it was sent, the user's id
 * included, and the erasure promised that nothing but that event keeps the id. Reasons this
 * service wrote itself (no HTTP answer: status 0, such as a timeout or a refused connection) name
 * no user and are kept.
 */
export function keptAnswer(eventReason: string | null, result: AttemptResult): AttemptResult {
  if (eventReason !== 'erased' || result.statusCode === 0) return result;
  const kept = `receiver answered ${result.statusCode}; ${ERASED_ANSWER_NOTE}`;
  return { ...result, responseBody: kept, ...(result.error !== undefined && { error: kept }) };
}

/** Why the body is missing, in the row's `response_body` (migration 018 writes the same words). */
export const ERASED_ANSWER_NOTE = 'its answer is not kept (the event is about an erased user)';
