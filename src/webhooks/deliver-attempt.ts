import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { sendWebhook, type AttemptResult, type ResolveTarget } from './http-attempt.js';
import { retryWaitMs } from './retry-schedule.js';
import { redactSignatures } from './signing.js';
import { UNFAIR, type DeliveryFairness } from '../fairness/delivery-fairness.js';
import { deliveries, deliveryDuration, webhooksDisabled } from '../metrics/registry.js';
import { record, recordSent } from './attempt-record.js';
import { eventBody, signedHeaders } from './attempt-payload.js';
import { disable, trackFailures } from './webhook-health.js';
import { whyNotSent } from '../outbox/subscription.js';
import { keptAnswer } from './kept-answer.js';

export interface DeliverAttemptInput {
  workflowId: string;
  eventId: number;
  webhookId: number;
  attempt: number;
  /** The schedule has no delay after this attempt: if it fails, the delivery has finally failed. */
  last?: boolean;
  /** The turn a `deferred` answer, or the failure before, gave this attempt (fairness/failing-turns.ts): it starts without asking again. */
  turnAt?: number;
  /** When the schedule retries if this attempt fails (ms after it); the next turn is booked no earlier. */
  nextDelayMs?: number;
  /**
   * The workflow can sleep on a `deferred` answer. Set by the workflow code that handles it, so an
   * older workflow still running during a rolling deploy is never answered what it would take for
   * a failed attempt (its attempt is sent without waiting for a turn far off).
   */
  canDefer?: boolean;
}

export interface DeliverAttemptOutput {
  /**
   * `stopped`: the webhook was deleted, deactivated, unsubscribed, or answered 410 Gone; no more
   * attempts. `deferred`: nothing was sent or recorded; the workflow sleeps `deferMs` and makes
   * this attempt again with `turnAt`.
   */
  outcome: 'success' | 'failed' | 'stopped' | 'deferred';
  statusCode: number;
  reason?: string;
  /** A 429 or 503 asked to wait this long (ms, capped at 24 h) before the next attempt. */
  retryAfterMs?: number;
  /** `deferred`: how long to sleep, and the turn to come back with (0: none kept, ask again). */
  deferMs?: number;
  turnAt?: number;
  /** `failed` while other tenants deliver: the next attempt's turn, and how long until it (ms). */
  nextTurnAt?: number;
  nextTurnInMs?: number;
}

export interface DeliverDeps {
  db: Db;
  openSecret: (sealed: string) => string;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  log: Logger;
  now?: () => Date;
  /** How the receiver's host is resolved and checked; see WebhookRequest.resolveTarget. */
  resolveTarget?: ResolveTarget;
  /** In-flight bounds and failing webhooks' turns (src/fairness/delivery-fairness.ts; absent: none, as in the activity's own tests). */
  fairness?: DeliveryFairness;
}

/** The webhook as it is now, and the event with its tenant: what an attempt sends, and to whom. */
interface Target {
  webhook: {
    id: number;
    url: string;
    secret_sealed: string | null;
    events: string[];
    segments: string[] | null;
    is_active: boolean;
    failing_since: Date | null;
    previous_secret_sealed: string | null;
    previous_secret_valid: boolean;
  };
  event: {
    id: number;
    event_type: string;
    created_at: Date;
    pipeline_id: number;
    segment_slug: string;
    segment_name: string;
    user_id: string;
    score: number;
    /** Set on the user_removed an erasure emits: `erased`. */
    reason: string | null;
    tenant_id: number;
  };
}

/** What the send did: the receiver's answer and the headers it was sent with. */
interface Sent {
  result: AttemptResult;
  headers: Record<string, string>;
}

/** What the answer means for the delivery. */
interface Verdict {
  status: 'success' | 'failed';
  /** 410 Gone: the receiver wants no more. */
  gone: boolean;
  /** No attempt follows this one. */
  final: boolean;
  /** A failing webhook's retry turn (fairness), when other tenants deliver. */
  next?: { turnAt: number };
  nextTurnInMs?: number;
}

/**
 * One HTTP attempt = one activity = one delivery row, in stages: load (the row a retry already
 * recorded, or the target), decide (not sent: whyNotSent), admit (fairness, which may defer it),
 * send, judge, record, and the webhook's health (auto-disable). The row is keyed by
 * `<workflow id>:<attempt>`, so a retried activity that already recorded its outcome returns it
 * without posting again. The secret is read here, never passed through workflow inputs.
 */
export async function deliverAttempt(deps: DeliverDeps, input: DeliverAttemptInput): Promise<DeliverAttemptOutput> {
  const attemptKey = `${input.workflowId}:${input.attempt}`;
  const loaded = await load(deps.db, input, attemptKey);
  if ('output' in loaded) return loaded.output;
  const { webhook, event } = loaded;

  const stopReason = whyNotSent(webhook, event);
  if (stopReason) return recordStop(deps.db, input, attemptKey, stopReason);

  const tenantId = Number(event.tenant_id);
  const admitted = await (deps.fairness ?? UNFAIR).beforeSend({
    webhookId: webhook.id,
    tenantId,
    failing: webhook.failing_since !== null,
    turnAt: input.turnAt,
    canDefer: input.canDefer,
  });
  if ('deferMs' in admitted) return { outcome: 'deferred', statusCode: 0, ...admitted };
  let sent: Sent;
  try {
    sent = await send(deps, loaded);
  } finally {
    await admitted.release();
  }

  const verdict = judge(deps, input, tenantId, sent.result);
  await recordSent(deps, input, attemptKey, {
    status: verdict.status,
    status_code: sent.result.statusCode,
    response_body: sent.result.responseBody,
    duration_ms: sent.result.durationMs,
    final: verdict.final,
    retry_after_ms: sent.result.retryAfterMs ?? null,
    request_headers: redactSignatures(sent.headers),
    // What the workflow sleeps after this answer (workflows/delivery.ts). Unknown for an attempt
    // scheduled before inputs carried nextDelayMs.
    next_attempt_in_ms:
      !sent.result.ok && !verdict.final && input.nextDelayMs !== undefined
        ? retryWaitMs(input.nextDelayMs, sent.result.retryAfterMs, verdict.nextTurnInMs)
        : null,
  });
  await webhookHealth(deps, input, webhook, sent.result, verdict);
  return answer(sent.result, verdict);
}

/** Stage load: the attempt's own row if a retry already recorded it, else the webhook and event (one round trip). */
async function load(
  db: Db,
  input: DeliverAttemptInput,
  attemptKey: string,
): Promise<{ output: DeliverAttemptOutput } | Target> {
  const { rows } = await db.raw(
    `SELECT d.status AS recorded_status, d.status_code AS recorded_code,
            d.final AND (d.status_code = 410 OR (d.status_code = 0 AND d.response_body LIKE 'not sent:%'))
              AS recorded_stop,
            d.retry_after_ms AS recorded_retry_after_ms,
            CASE WHEN d.next_attempt_at IS NOT NULL
                 THEN greatest(0, ceil(extract(epoch FROM d.next_attempt_at - now()) * 1000))::bigint END
              AS recorded_next_in_ms,
            w.id AS webhook_id, w.url, w.secret_sealed, w.events, w.segments, w.is_active, w.failing_since,
            w.previous_secret_sealed, w.previous_secret_expires_at > now() AS previous_secret_valid,
            e.id AS event_id, e.event_type, e.created_at, e.pipeline_id, e.segment_slug, e.segment_name,
            e.user_id, e.score, e.reason, p.tenant_id
       FROM (SELECT 1) AS one
       LEFT JOIN webhook_deliveries d ON d.attempt_key = ?
       LEFT JOIN webhooks w ON w.id = ?
       LEFT JOIN events e ON e.id = ?
       LEFT JOIN projects p ON p.id = e.project_id`,
    [attemptKey, input.webhookId, input.eventId],
  );
  const r = rows[0];
  if (r.recorded_status) return { output: recordedOutcome(r) };
  if (r.webhook_id === null) return { output: { outcome: 'stopped', statusCode: 0, reason: 'webhook deleted' } };
  if (r.event_id === null) return { output: { outcome: 'stopped', statusCode: 0, reason: 'event deleted' } };
  return {
    webhook: {
      id: r.webhook_id,
      url: r.url,
      secret_sealed: r.secret_sealed,
      events: r.events,
      segments: r.segments,
      is_active: r.is_active,
      failing_since: r.failing_since,
      previous_secret_sealed: r.previous_secret_sealed,
      previous_secret_valid: r.previous_secret_valid,
    },
    event: {
      id: r.event_id,
      event_type: r.event_type,
      created_at: r.created_at,
      pipeline_id: r.pipeline_id,
      segment_slug: r.segment_slug,
      segment_name: r.segment_name,
      user_id: r.user_id,
      score: r.score,
      reason: r.reason,
      tenant_id: r.tenant_id,
    },
  };
}

/** Stage decide, when the answer is no: the stop is recorded (final) and the delivery ends. */
async function recordStop(
  db: Db,
  input: DeliverAttemptInput,
  attemptKey: string,
  reason: string,
): Promise<DeliverAttemptOutput> {
  await record(db, input, attemptKey, {
    status: 'failed',
    status_code: 0,
    response_body: reason,
    duration_ms: 0,
    final: true,
  });
  deliveries.inc({ outcome: 'not_sent' });
  return { outcome: 'stopped', statusCode: 0, reason };
}

/** Stage send: the event's body, signed, POSTed behind the SSRF guard; what of the answer is kept (kept-answer.ts). */
async function send(deps: DeliverDeps, { webhook, event }: Target): Promise<Sent> {
  const body = eventBody(event);
  const headers = signedHeaders(deps, webhook, event.id, event.event_type, body);
  const result = await sendWebhook({
    url: webhook.url,
    body,
    headers,
    timeoutMs: deps.timeoutMs,
    allowPrivateNetworks: deps.allowPrivateNetworks,
    resolveTarget: deps.resolveTarget,
  });
  // Before anything keeps it: an answer about an erased user is reduced to its status.
  return { result: keptAnswer(event.reason, result), headers };
}

/** Stage judge: success, a failure to retry (with its turn when the webhook is failing), or final. */
function judge(deps: DeliverDeps, input: DeliverAttemptInput, tenantId: number, result: AttemptResult): Verdict {
  const gone = result.statusCode === 410;
  const final = !result.ok && (gone || input.last === true);
  if (result.ok || final) return { status: result.ok ? 'success' : 'failed', gone, final };
  const t = Date.now();
  const next = (deps.fairness ?? UNFAIR).retryTurn(tenantId, t + (input.nextDelayMs ?? 0));
  return { status: 'failed', gone, final, ...(next && { next, nextTurnInMs: Math.max(0, next.turnAt - t) }) };
}

/** Stage webhook health: 410 deactivates, a failure streak of 5 days too; metrics and the log line. */
async function webhookHealth(
  deps: DeliverDeps,
  input: DeliverAttemptInput,
  webhook: Target['webhook'],
  result: AttemptResult,
  verdict: Verdict,
): Promise<void> {
  const disabled = verdict.gone
    ? await disable(deps.db, webhook.id, `the receiver answered 410 Gone (event ${input.eventId})`)
    : await trackFailures(deps, webhook.id, result.ok, webhook.failing_since !== null);
  deliveries.inc({ outcome: verdict.status });
  deliveryDuration.observe({ outcome: verdict.status }, result.durationMs / 1000);
  if (disabled) {
    webhooksDisabled.inc({ reason: verdict.gone ? 'gone' : 'failing' });
    deps.log.warn('webhook deactivated', { webhook_id: webhook.id, reason: disabled });
  }
  deps.log.info('webhook attempt', {
    event_id: input.eventId,
    webhook_id: input.webhookId,
    attempt: input.attempt,
    status: verdict.status,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
  });
}

/** What the workflow is answered. */
function answer(result: AttemptResult, verdict: Verdict): DeliverAttemptOutput {
  if (verdict.gone) return { outcome: 'stopped', statusCode: 410, reason: 'the receiver answered 410 Gone' };
  return {
    outcome: verdict.status,
    statusCode: result.statusCode,
    reason: result.ok ? undefined : (result.error ?? result.responseBody.slice(0, 200)),
    ...(result.retryAfterMs !== undefined && { retryAfterMs: result.retryAfterMs }),
    ...(verdict.next && { nextTurnAt: verdict.next.turnAt, nextTurnInMs: verdict.nextTurnInMs }),
  };
}

/**
 * What a retried activity answers when its attempt is already recorded (it crashed after the insert):
 * the same outcome, and a wait that ends no earlier than the row's `next_attempt_at`, so the
 * workflow never retries before the time the row shows, and a receiver's Retry-After still holds.
 * A row that records a stop (410 Gone, or not sent: whyNotSent) is a stop again, as the first time.
 * The turn booked for the next attempt is not carried (the row keeps its time, not the turn): the
 * next attempt to a failing webhook asks for a turn again, so after this rare retry it can wait
 * one turn more, never less.
 */
function recordedOutcome(r: Record<string, any>): DeliverAttemptOutput {
  const statusCode = r.recorded_code as number;
  if (r.recorded_stop) return { outcome: 'stopped', statusCode, reason: 'recorded as a stop' };
  return {
    outcome: r.recorded_status,
    statusCode,
    ...(r.recorded_retry_after_ms != null && { retryAfterMs: Number(r.recorded_retry_after_ms) }),
    ...(r.recorded_next_in_ms != null && { nextTurnInMs: Number(r.recorded_next_in_ms) }),
  };
}
