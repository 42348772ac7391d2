import type { Db } from '../db/knex.js';
import { isDatabaseDown } from '../errors.js';
import type { Logger } from '../logger.js';
import { sendWebhook, type AttemptResult, type ResolveTarget } from './http-attempt.js';
import { retryWaitMs } from './retry-schedule.js';
import { redactSignatures, signBody, standardWebhookHeaders } from './signing.js';
import type { DeliveryLimits } from '../fairness/in-flight.js';
import type { FailingTurns } from '../fairness/failing-turns.js';
import { deliveries, deliveryDuration, webhooksDisabled } from '../metrics/registry.js';
import { firstAttemptRecorded } from '../outbox/outbox.js';
import { whyNotSent } from '../outbox/subscription.js';

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
  /** Attempts in flight per webhook and per tenant (absent: unbounded, as in the activity's own tests). */
  limits?: DeliveryLimits;
  /** Turns over time for attempts to failing webhooks, shared between tenants (absent: none). */
  turns?: FailingTurns;
}

/** The JSON body of an event; the same bytes on every attempt and for every webhook. */
function eventBody(event: Record<string, any>): string {
  if (event.event_type === 'ping') {
    return JSON.stringify({
      event_type: 'ping',
      timestamp: (event.created_at as Date).toISOString(),
      pipeline_id: event.pipeline_id,
      message: 'Test event: this webhook is reachable and its signature can be verified.',
    });
  }
  return JSON.stringify({
    event_type: event.event_type,
    timestamp: (event.created_at as Date).toISOString(),
    pipeline_id: event.pipeline_id,
    segment: { id: event.segment_slug, name: event.segment_name },
    user: { id: event.user_id, score: event.score },
  });
}

/**
 * One HTTP attempt = one activity = one delivery row. The row is keyed by `<workflow id>:<attempt>`,
 * so a retried activity that already recorded its outcome returns it without posting again.
 * The secret is read here, never passed through workflow inputs.
 */
export async function deliverAttempt(deps: DeliverDeps, input: DeliverAttemptInput): Promise<DeliverAttemptOutput> {
  const { db } = deps;
  const attemptKey = `${input.workflowId}:${input.attempt}`;
  // One round trip for what an attempt reads: its own row if a retry already recorded it, the
  // webhook as it is now, and the event with its tenant.
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
            e.user_id, e.score, p.tenant_id
       FROM (SELECT 1) AS one
       LEFT JOIN webhook_deliveries d ON d.attempt_key = ?
       LEFT JOIN webhooks w ON w.id = ?
       LEFT JOIN events e ON e.id = ?
       LEFT JOIN projects p ON p.id = e.project_id`,
    [attemptKey, input.webhookId, input.eventId],
  );
  const r = rows[0];
  if (r.recorded_status) return recordedOutcome(r);
  if (r.webhook_id === null) return { outcome: 'stopped', statusCode: 0, reason: 'webhook deleted' };
  if (r.event_id === null) return { outcome: 'stopped', statusCode: 0, reason: 'event deleted' };
  const webhook = {
    id: r.webhook_id as number,
    url: r.url as string,
    secret_sealed: r.secret_sealed as string | null,
    events: r.events as string[],
    segments: r.segments as string[] | null,
    is_active: r.is_active as boolean,
    failing_since: r.failing_since as Date | null,
    previous_secret_sealed: r.previous_secret_sealed as string | null,
    previous_secret_valid: r.previous_secret_valid as boolean,
  };
  const event = {
    id: r.event_id as number,
    event_type: r.event_type as string,
    created_at: r.created_at as Date,
    pipeline_id: r.pipeline_id as number,
    segment_slug: r.segment_slug as string,
    segment_name: r.segment_name as string,
    user_id: r.user_id as string,
    score: r.score as number,
    tenant_id: r.tenant_id as number,
  };

  const stopReason = whyNotSent(webhook, event);
  if (stopReason) {
    await record(db, input, attemptKey, {
      status: 'failed',
      status_code: 0,
      response_body: stopReason,
      duration_ms: 0,
      final: true,
    });
    deliveries.inc({ outcome: 'not_sent' });
    return { outcome: 'stopped', statusCode: 0, reason: stopReason };
  }

  const tenantId = Number(event.tenant_id);
  // Throws WaitYourTurn when this webhook or tenant has its attempts in flight: nothing is sent or
  // recorded, and the activity is retried a moment later (not counted as a delivery attempt).
  const release = await deps.limits?.acquire(webhook.id, tenantId);
  let result: AttemptResult;
  let headers: Record<string, string>;
  try {
    // A webhook whose deliveries are failing takes turns with other tenants' deliveries (after the
    // in-flight place: a turn is not spent on an attempt sent back): a turn far off is answered,
    // and the workflow sleeps until it (nothing sent, nothing recorded).
    if (deps.turns && webhook.failing_since !== null && !input.turnAt) {
      const turn = deps.turns.take(tenantId);
      if ('deferMs' in turn && input.canDefer) {
        return { outcome: 'deferred', statusCode: 0, deferMs: turn.deferMs, turnAt: turn.turnAt };
      }
      const waitMs = 'waitMs' in turn ? turn.waitMs : 0;
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    }
    const body = eventBody(event);
    deps.turns?.started(tenantId);
    headers = signedHeaders(deps, webhook, event.id, event.event_type, body);
    result = await sendWebhook({
      url: webhook.url,
      body,
      headers,
      timeoutMs: deps.timeoutMs,
      allowPrivateNetworks: deps.allowPrivateNetworks,
      resolveTarget: deps.resolveTarget,
    });
  } finally {
    await release?.();
  }
  const status = result.ok ? 'success' : 'failed';
  const gone = result.statusCode === 410;
  const final = !result.ok && (gone || input.last === true);
  // A failure makes (or keeps) the webhook failing: the retry takes its turn, booked now, before
  // the row is written, so that the row says when the workflow retries.
  const t = Date.now();
  const next =
    !result.ok && !final && deps.turns ? deps.turns.bookNext(tenantId, t + (input.nextDelayMs ?? 0)) : undefined;
  const nextTurnInMs = next && Math.max(0, next.turnAt - t);
  await recordSent(deps, input, attemptKey, {
    status,
    status_code: result.statusCode,
    response_body: result.responseBody,
    duration_ms: result.durationMs,
    final,
    retry_after_ms: result.retryAfterMs ?? null,
    request_headers: redactSignatures(headers),
    // What the workflow sleeps after this answer (workflows/delivery.ts). Unknown for an attempt
    // scheduled before inputs carried nextDelayMs.
    next_attempt_in_ms:
      !result.ok && !final && input.nextDelayMs !== undefined
        ? retryWaitMs(input.nextDelayMs, result.retryAfterMs, nextTurnInMs)
        : null,
  });
  const disabled = gone
    ? await disable(db, webhook.id, `the receiver answered 410 Gone (event ${input.eventId})`)
    : await trackFailures(deps, webhook.id, result.ok, webhook.failing_since !== null);
  deliveries.inc({ outcome: status });
  deliveryDuration.observe({ outcome: status }, result.durationMs / 1000);
  if (disabled) {
    webhooksDisabled.inc({ reason: gone ? 'gone' : 'failing' });
    deps.log.warn('webhook deactivated', { webhook_id: webhook.id, reason: disabled });
  }
  deps.log.info('webhook attempt', {
    event_id: input.eventId,
    webhook_id: input.webhookId,
    attempt: input.attempt,
    status,
    status_code: result.statusCode,
    duration_ms: result.durationMs,
  });
  if (gone) return { outcome: 'stopped', statusCode: 410, reason: 'the receiver answered 410 Gone' };
  return {
    outcome: status,
    statusCode: result.statusCode,
    reason: result.ok ? undefined : (result.error ?? result.responseBody.slice(0, 200)),
    ...(result.retryAfterMs !== undefined && { retryAfterMs: result.retryAfterMs }),
    ...(next && { nextTurnAt: next.turnAt, nextTurnInMs }),
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

/** The request headers of an attempt: the interface's, and the Standard Webhooks ones, signed. */
function signedHeaders(
  deps: DeliverDeps,
  webhook: { secret_sealed: string | null; previous_secret_sealed: string | null; previous_secret_valid: boolean },
  eventId: number,
  eventType: string,
  body: string,
): Record<string, string> {
  const msgId = String(eventId);
  const timestampSec = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'semantic-profiling-webhooks/1',
    'X-Event-ID': msgId,
    'X-Event-Type': eventType,
  };
  if (!webhook.secret_sealed) {
    return { ...headers, 'webhook-id': msgId, 'webhook-timestamp': String(timestampSec) };
  }
  const secret = deps.openSecret(webhook.secret_sealed);
  const previousSecret =
    webhook.previous_secret_sealed && webhook.previous_secret_valid
      ? deps.openSecret(webhook.previous_secret_sealed)
      : undefined;
  // During a rotation's overlap `webhook-signature` carries both signatures, and the single
  // `X-Webhook-Signature` stays on the previous secret, the one a receiver has until it switches
  // (src/webhooks/rotate-secret.ts).
  return {
    ...headers,
    'X-Webhook-Signature': signBody(previousSecret ?? secret, body),
    ...standardWebhookHeaders({ msgId, timestampSec, body, secret, previousSecret }),
  };
}

/** Deactivates a webhook with a reason; answers the reason if this call did it (once). */
async function disable(db: Db, webhookId: number, reason: string): Promise<string | undefined> {
  const rows = await db('webhooks')
    .where({ id: webhookId, is_active: true })
    .update({ is_active: false, disabled_reason: reason, updated_at: db.fn.now() })
    .returning('id');
  return rows.length > 0 ? reason : undefined;
}

/**
 * A webhook whose deliveries have all failed this long is deactivated. Five days, as Svix: long
 * enough to outlast a weekend outage and the whole retry schedule of one event (about 27 h), so an
 * operator has no reason to tune it (a constant, not a variable).
 */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/**
 * Auto-disable: a success clears `failing_since`; a failure starts it if needed, and a webhook
 * whose deliveries have all failed for WEBHOOK_DISABLE_AFTER_MS is deactivated (as Svix does).
 */
async function trackFailures(
  deps: DeliverDeps,
  webhookId: number,
  ok: boolean,
  wasFailing: boolean,
): Promise<string | undefined> {
  const { db } = deps;
  if (ok) {
    // The webhook was read just before the POST: a healthy one (the usual case) costs no write.
    if (wasFailing) {
      await db('webhooks').where({ id: webhookId }).whereNotNull('failing_since').update({ failing_since: null });
    }
    return undefined;
  }
  const [row] = await db('webhooks')
    .where({ id: webhookId })
    .update({ failing_since: db.raw('coalesce(failing_since, now())') })
    .returning([db.raw('extract(epoch FROM now() - failing_since) * 1000 AS failing_ms'), 'failing_since']);
  if (!row || Number(row.failing_ms) < WEBHOOK_DISABLE_AFTER_MS) return undefined;
  return disable(db, webhookId, `every delivery failed since ${(row.failing_since as Date).toISOString()} (5 days)`);
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
async function recordSent(
  deps: DeliverDeps,
  input: DeliverAttemptInput,
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

async function record(
  db: Db,
  input: DeliverAttemptInput,
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
