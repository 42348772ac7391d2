import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Caller } from '../auth/api-keys.js';
import type { Db } from '../db/knex.js';
import { AppError, invalid, notFound } from '../errors.js';
import { idempotencyScope, lockIdempotencyKey, rememberAnswer } from '../idempotency.js';
import type { Quotas } from '../quotas.js';
import { parseStrictTimestamp } from '../ingest/timestamp.js';
import { requireId } from '../validation.js';
import type { Logger } from '../observability/logger.js';
import { queueRecoveries, recordResend, wakeRelay } from '../outbox/outbox.js';
import { requireWebhook, type DeliveryStarter, type WebhookRef } from './manage-webhooks.js';

/**
 * Sending events again: `resend` (one delivery, now) and `recover` (every event that finally
 * failed since a time, through the outbox). Each run is an outbox row naming its workflow, so
 * whether an event is already being re-sent is a question PostgreSQL answers (migration 010).
 */

export interface RecoverAnswer {
  /** Events queued to be sent again by this request. */
  events: number;
  /** Extension: events that finally failed since then but are being re-sent already (not queued again). */
  already_recovering: number;
}

/**
 * Re-sends every event whose delivery to this webhook finally failed (its last attempt, a stop
 * because the webhook was inactive or unsubscribed, or 410 Gone) at or after `since`, has not
 * succeeded since, and is not being re-sent already (by a recover or a resend still under way).
 *
 * Each event gets an outbox row of kind `recovery`; the relay starts them with the same admission
 * as any event (a few waiting per webhook and per tenant), so a recovery of thousands of events
 * enters Temporal at the pace its receiver takes them. Serialised per webhook (its row is held),
 * so concurrent recovers queue each event once. Limited to FIXED_QUOTAS.recoversPerMinute (5) per webhook;
 * a retried request under the same `Idempotency-Key` answers the first count and takes no slot.
 */
export async function recoverWebhook(
  db: Db,
  caller: Caller,
  ref: WebhookRef,
  input: { since: string | Date | undefined },
  idempotencyKey: string | undefined,
  quotas: Pick<Quotas, 'recoversPerMinute'>,
): Promise<RecoverAnswer> {
  const since = typeof input.since === 'string' ? parseStrictTimestamp(input.since) : input.since;
  if (since === undefined) throw invalid('since', 'since is required (an ISO 8601 date-time)');
  if (typeof since === 'string') throw invalid('since', since.replace(/^timestamp/, 'since'));
  if (Number.isNaN(since.getTime())) throw invalid('since', 'since must be a valid date-time');
  if (since.getTime() > Date.now()) throw invalid('since', 'since must not be in the future');
  const scope = idempotencyScope(caller, idempotencyKey, {
    operation: 'recover_webhook',
    ...ref,
    since: since.toISOString(),
  });
  const webhook = await requireWebhook(db, caller, ref);
  if (!webhook.is_active) {
    throw new AppError(
      'failed_precondition',
      'the webhook is inactive: activate it (is_active true) before recovering, or its deliveries would stop at once',
    );
  }
  return db.transaction(async (trx) => {
    if (scope) {
      const previous = await lockIdempotencyKey(trx, scope, new Date());
      if (previous) return previous as RecoverAnswer;
    }
    await takeSlot(trx, ref.webhookId, 'recover', quotas.recoversPerMinute);
    const { failed, queued } = await queueRecoveries(trx, ref.webhookId, since);
    const answer: RecoverAnswer = { events: queued, already_recovering: failed - queued };
    if (answer.events > 0) await wakeRelay(trx);
    if (scope) await rememberAnswer(trx, scope, answer);
    return answer;
  });
}

/**
 * Starts a fresh delivery of the event of a delivery (202), now: an operator's resend does not
 * wait in the outbox. Without `Idempotency-Key` every request is a new resend; with one, a retried
 * request answers the first resend's workflow id and starts nothing (the workflow id is derived
 * from the key, so even a lost answer cannot start two). The run is recorded as an outbox row of
 * kind `resend` in the same transaction, so a recover leaves its event alone while it runs.
 *
 * When Temporal cannot start it (away, overloaded), the row is stored undispatched instead and the
 * answer is the same 202 with the same workflow id: the relay starts it once Temporal answers, as
 * it does test events and recoveries. The resend is accepted, never lost, never a 500.
 */
export async function resendDelivery(
  db: Db,
  starter: DeliveryStarter,
  caller: Caller,
  ref: WebhookRef,
  deliveryIdInput: number,
  idempotencyKey: string | undefined,
  quotas: Pick<Quotas, 'resendsPerMinute'>,
  log?: Logger,
): Promise<{ workflow_id: string }> {
  const deliveryId = requireId(deliveryIdInput, 'delivery_id');
  const scope = idempotencyScope(caller, idempotencyKey, { operation: 'resend_delivery', ...ref, deliveryId });
  await requireWebhook(db, caller, ref);
  const delivery = await db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'd.id': deliveryId, 'd.webhook_id': ref.webhookId })
    .first('d.event_id', 'e.uid as event_uid');
  if (!delivery) throw notFound('delivery');
  // The start runs inside the transaction: a twin request with the same key waits, then replays
  // this answer (a replay takes no resend slot).
  return db.transaction(async (trx) => {
    if (scope) {
      const previous = await lockIdempotencyKey(trx, scope, new Date());
      if (previous) return previous as { workflow_id: string };
    }
    await takeSlot(trx, ref.webhookId, 'resend', quotas.resendsPerMinute);
    const token = scope ? uuidFrom(scope.keyHash) : randomUUID();
    const start = {
      eventId: delivery.event_id,
      eventUid: delivery.event_uid,
      webhookId: ref.webhookId,
      pipelineId: ref.pipelineId,
      tenantId: caller.tenantId,
      resend: { deliveryId, token },
    };
    let started: string | undefined;
    try {
      started = await starter.startDelivery(start);
    } catch (err) {
      log?.warn('resend stored; workflow start deferred to the relay', { delivery_id: deliveryId, err });
    }
    await recordResend(trx, {
      eventId: delivery.event_id,
      webhookId: ref.webhookId,
      deliveryId,
      token,
      ...(started && { workflowId: started }),
    });
    if (!started) await wakeRelay(trx);
    const answer = { workflow_id: started ?? starter.deliveryWorkflowId(start) };
    if (scope) await rememberAnswer(trx, scope, answer);
    return answer;
  });
}

/** A uuid-shaped token from a key hash (the `token` column is a uuid). */
const uuidFrom = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/**
 * At most `perMinute` resends (or recovers) per webhook in any 60 s: a sliding window kept in
 * PostgreSQL, so every api process shares it; over it, 429 with the seconds until the oldest one
 * leaves. Holds the webhook's row until the transaction ends, which serialises the resends and
 * recovers of one webhook.
 */
async function takeSlot(
  trx: Knex.Transaction,
  webhookId: number,
  kind: 'resend' | 'recover',
  perMinute: number,
): Promise<void> {
  const held = await trx.raw('SELECT 1 FROM webhooks WHERE id = ? FOR NO KEY UPDATE', [webhookId]);
  if (held.rows.length === 0) throw notFound('webhook'); // deleted since it was read
  await trx('webhook_resends')
    .where({ webhook_id: webhookId, kind })
    .where('at', '<', trx.raw("now() - interval '1 minute'"))
    .delete();
  const { rows } = await trx.raw(
    `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 minute' - now()))::int AS wait
       FROM webhook_resends WHERE webhook_id = ? AND kind = ?`,
    [webhookId, kind],
  );
  if (rows[0].n >= perMinute) {
    throw new AppError(
      'rate_limited',
      `at most ${perMinute} ${kind}s per minute per webhook`,
      undefined,
      Math.max(1, rows[0].wait),
    );
  }
  await trx('webhook_resends').insert({ webhook_id: webhookId, kind });
}
