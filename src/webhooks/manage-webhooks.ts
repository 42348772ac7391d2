import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { AppError, invalid, notFound } from '../errors.js';
import { requirePipeline, type PipelineRef } from '../projects/projects.js';
import { holdPipelineQuota, type Quotas } from '../quotas.js';
import { optionalInt, requireId } from '../validation.js';
import { validateWebhookUrl } from './url.js';
import { parseStrictTimestamp } from '../users/timestamp.js';
import { idempotencyScope, lockIdempotencyKey, rememberAnswer } from '../idempotency.js';

export const EVENT_TYPES = ['user_added', 'user_removed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface WebhookView {
  id: number;
  pipeline_id: number;
  url: string;
  events: EventType[];
  is_active: boolean;
  /** Extension: segment ids this webhook is limited to; empty = every segment of the pipeline. */
  segments: string[];
  /** Extension: why the service deactivated it (410 Gone, WEBHOOK_DISABLE_AFTER); null otherwise. */
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryView {
  id: number;
  event_id: number;
  webhook_id: number;
  status: 'success' | 'failed';
  status_code: number;
  response_body: string;
  duration_ms: number;
  /** Extension: the receiver's Retry-After (429/503) that held back the next attempt, in ms. */
  retry_after_ms: number | null;
  created_at: Date;
}

export interface CreateWebhookInput {
  url: string;
  /** Absent or null: deliveries are sent unsigned. */
  secret?: string | null;
  /** Event type names; both when absent. */
  events?: string[];
  /** Segment ids of the pipeline; absent or empty: every segment. */
  segments?: string[];
}

/** Absent fields stay as they are; `secret: null` removes the secret. */
export interface UpdateWebhookInput {
  url?: string;
  secret?: string | null;
  events?: string[];
  /** Empty: every segment again. */
  segments?: string[];
  /** true clears `disabled_reason`. */
  isActive?: boolean;
}

export interface WebhookRef extends PipelineRef {
  webhookId: number;
}

/** Seals secrets at rest (AES-256-GCM); see secret-box.ts. */
export interface SecretSealer {
  seal(plain: string): string;
}

/** Starts the delivery workflow of an event to a webhook (from the outbox), or a resend, and answers its id. */
export interface DeliveryStarter {
  startDelivery(args: {
    eventId: number;
    eventUid: string;
    webhookId: number;
    pipelineId: number;
    /** Temporal's fairness key: tenants' deliveries take turns in the task queue. */
    tenantId: number;
    /** A resend of a delivery; `token` names this resend (one per request, or per Idempotency-Key). */
    resend?: { deliveryId: number; token: string };
  }): Promise<string>;
}

// Never select secret_sealed into a view: the secret must not be able to leak into an answer.
const COLUMNS = [
  'id',
  'pipeline_id',
  'url',
  'events',
  'is_active',
  'segments',
  'disabled_reason',
  'created_at',
  'updated_at',
];
const view = (row: Record<string, any>): WebhookView => ({ ...row, segments: row.segments ?? [] }) as WebhookView;

/** Segment ids must name segments of the pipeline (any status): a typo is an error, not a silent filter. */
async function validateSegments(db: Db, pipelineId: number, raw: string[]): Promise<string[]> {
  if (raw.length > 100) throw invalid('segments', 'at most 100 segment ids');
  const ids = [...new Set(raw)].sort();
  const found = ids.length
    ? await db('segments').where({ pipeline_id: pipelineId }).whereIn('slug', ids).pluck('slug')
    : [];
  const missing = ids.filter((id) => !found.includes(id));
  if (missing.length > 0) {
    throw invalid('segments', `no segment ${missing.map((m) => JSON.stringify(m)).join(', ')} in this pipeline`);
  }
  return ids;
}

function validateEvents(raw: string[]): EventType[] {
  if (raw.length === 0 || raw.some((e) => !(EVENT_TYPES as readonly string[]).includes(e))) {
    throw invalid('events', `events must be a non-empty array of ${EVENT_TYPES.join(', ')}`);
  }
  return [...new Set(raw as EventType[])].sort();
}

function validateSecret(raw: string): string {
  if (raw.length < 8 || raw.length > 256) throw invalid('secret', 'secret must be a string of 8 to 256 characters');
  return raw;
}

async function requireWebhook(db: Db, caller: Caller, ref: WebhookRef) {
  await requirePipeline(db, caller, ref);
  const row = await db('webhooks').where({ id: ref.webhookId, pipeline_id: ref.pipelineId }).first(COLUMNS);
  if (!row) throw notFound('webhook');
  return view(row);
}

export async function createWebhook(
  db: Db,
  box: SecretSealer,
  caller: Caller,
  pipeline: PipelineRef,
  input: CreateWebhookInput,
  quotas: Pick<Quotas, 'webhooksPerPipeline'>,
): Promise<WebhookView> {
  const url = validateWebhookUrl(input.url).toString();
  const events = input.events === undefined ? [...EVENT_TYPES] : validateEvents(input.events);
  const secret = input.secret === undefined || input.secret === null ? undefined : validateSecret(input.secret);
  await requirePipeline(db, caller, pipeline);
  const segments = input.segments?.length ? await validateSegments(db, pipeline.pipelineId, input.segments) : null;
  return db.transaction(async (trx) => {
    await holdPipelineQuota(trx, {
      table: 'webhooks',
      pipelineId: pipeline.pipelineId,
      max: quotas.webhooksPerPipeline,
      setting: 'QUOTA_WEBHOOKS_PER_PIPELINE',
    });
    const [row] = await trx('webhooks')
      .insert({
        pipeline_id: pipeline.pipelineId,
        url,
        events,
        secret_sealed: secret ? box.seal(secret) : null,
        is_active: true,
        segments,
      })
      .returning(COLUMNS);
    return view(row);
  });
}

export async function listWebhooks(db: Db, caller: Caller, pipeline: PipelineRef): Promise<WebhookView[]> {
  await requirePipeline(db, caller, pipeline);
  return (await db('webhooks').where({ pipeline_id: pipeline.pipelineId }).orderBy('id').select(COLUMNS)).map(view);
}

export async function getWebhook(db: Db, caller: Caller, ref: WebhookRef): Promise<WebhookView> {
  return requireWebhook(db, caller, ref);
}

export async function updateWebhook(
  db: Db,
  box: SecretSealer,
  caller: Caller,
  ref: WebhookRef,
  input: UpdateWebhookInput,
): Promise<WebhookView> {
  const patch: Record<string, unknown> = {};
  if (input.url !== undefined) patch.url = validateWebhookUrl(input.url).toString();
  if (input.events !== undefined) patch.events = validateEvents(input.events);
  if (input.secret !== undefined) {
    // Replaced at once, as the interface says: a rotation in progress ends with it.
    patch.secret_sealed = input.secret === null ? null : box.seal(validateSecret(input.secret));
    patch.previous_secret_sealed = null;
    patch.previous_secret_expires_at = null;
  }
  if (input.isActive !== undefined) {
    patch.is_active = input.isActive;
    // Re-activated: the reason it was switched off and its failure streak are history.
    if (input.isActive) Object.assign(patch, { disabled_reason: null, failing_since: null });
  }
  const current = await requireWebhook(db, caller, ref);
  if (input.segments !== undefined) {
    patch.segments = input.segments.length ? await validateSegments(db, ref.pipelineId, input.segments) : null;
  }
  if (Object.keys(patch).length === 0) return current;
  const [row] = await db('webhooks')
    .where({ id: current.id })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning(COLUMNS);
  return view(row);
}

export async function deleteWebhook(db: Db, caller: Caller, ref: WebhookRef): Promise<void> {
  const current = await requireWebhook(db, caller, ref);
  await db('webhooks').where({ id: current.id }).delete();
}

export interface ListDeliveriesInput {
  /** 1..200, default 50. */
  limit?: number;
  /** Extension filters: `success` / `failed`, and one event. */
  status?: string;
  eventId?: number;
  /** Extension cursor: only deliveries older than this delivery id (the previous page's `nextBefore`). */
  before?: number;
}

export interface DeliveryPage {
  /** Newest first. */
  deliveries: DeliveryView[];
  /** The `before` of the next page; undefined on the last page. */
  nextBefore?: number;
}

export async function listDeliveries(
  db: Db,
  caller: Caller,
  ref: WebhookRef,
  q: ListDeliveriesInput,
): Promise<DeliveryPage> {
  const limit = optionalInt(q.limit, 'limit', 1, 200) ?? 50;
  if (q.status !== undefined && q.status !== 'success' && q.status !== 'failed') {
    throw invalid('status', 'status must be success or failed');
  }
  const eventId = q.eventId === undefined ? undefined : requireId(q.eventId, 'event_id');
  const before = q.before === undefined ? undefined : requireId(q.before, 'before');
  await requireWebhook(db, caller, ref);
  // Keyset paging on the id (the primary key, newest first): no gap and no repeat while new
  // deliveries arrive, and each page costs the same however deep it is.
  const rows = await db('webhook_deliveries')
    .where({ webhook_id: ref.webhookId })
    .modify((b) => {
      if (q.status !== undefined) b.where({ status: q.status });
      if (eventId !== undefined) b.where({ event_id: eventId });
      if (before !== undefined) b.where('id', '<', before);
    })
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .select(
      'id',
      'event_id',
      'webhook_id',
      'status',
      'status_code',
      'response_body',
      'duration_ms',
      'retry_after_ms',
      'created_at',
    );
  const deliveries = rows.slice(0, limit);
  return { deliveries, nextBefore: rows.length > limit ? deliveries[deliveries.length - 1].id : undefined };
}

export interface RotateSecretInput {
  /** The new secret (8..256 characters); absent: generated, `whsec_` + base64 of 32 random bytes. */
  secret?: string;
  /** How long the previous secret keeps signing too (0..604800 s, default 86400); 0 = ends now. */
  overlapSeconds?: number;
}

/**
 * Rotates a webhook's secret and answers the new one, the only answer that ever carries a secret.
 * During the overlap deliveries carry both signatures in `webhook-signature`; then the previous
 * secret is erased (src/webhooks/secret-sweep.ts).
 */
export async function rotateSecret(
  db: Db,
  box: SecretSealer,
  caller: Caller,
  ref: WebhookRef,
  input: RotateSecretInput,
): Promise<{ secret: string; previous_secret_expires_at: Date | null; webhook: WebhookView }> {
  const secret =
    input.secret === undefined ? `whsec_${randomBytes(32).toString('base64')}` : validateSecret(input.secret);
  const overlapSeconds = optionalInt(input.overlapSeconds, 'overlap_seconds', 0, 604_800) ?? 86_400;
  await requireWebhook(db, caller, ref);
  return db.transaction(async (trx) => {
    const current = await trx('webhooks').where({ id: ref.webhookId }).forUpdate().first('secret_sealed');
    if (!current) throw notFound('webhook'); // deleted since requireWebhook
    const keepPrevious = overlapSeconds > 0 && current.secret_sealed !== null;
    const [row] = await trx('webhooks')
      .where({ id: ref.webhookId })
      .update({
        secret_sealed: box.seal(secret),
        previous_secret_sealed: keepPrevious ? current.secret_sealed : null,
        previous_secret_expires_at: keepPrevious ? trx.raw(`now() + make_interval(secs => ?)`, [overlapSeconds]) : null,
        updated_at: trx.fn.now(),
      })
      .returning([...COLUMNS, 'previous_secret_expires_at']);
    const { previous_secret_expires_at, ...webhook } = row;
    return { secret, previous_secret_expires_at, webhook: view(webhook) };
  });
}

/**
 * Re-sends every event whose delivery to this webhook finally failed (its last attempt, a stop
 * because the webhook was inactive or unsubscribed, or 410 Gone) at or after `since`, and has not
 * succeeded since: one new delivery workflow per event. Answers how many. Idempotent under
 * `Idempotency-Key` (the workflows' ids derive from it, so a retried request starts nothing new).
 */
export async function recoverWebhook(
  db: Db,
  starter: DeliveryStarter,
  caller: Caller,
  ref: WebhookRef,
  input: { since: string | Date | undefined },
  idempotencyKey: string | undefined,
): Promise<{ events: number }> {
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
  await requireWebhook(db, caller, ref);
  const recover = async (token: string) => {
    const failed: { delivery_id: number; event_id: number; event_uid: string }[] = await db('webhook_deliveries as d')
      .join('events as e', 'e.id', 'd.event_id')
      .where({ 'd.webhook_id': ref.webhookId, 'd.final': true })
      .where('d.created_at', '>=', since)
      .whereNotExists((q) =>
        q
          .from('webhook_deliveries as ok')
          .whereRaw('ok.webhook_id = d.webhook_id AND ok.event_id = d.event_id')
          .where('ok.status', 'success'),
      )
      .distinctOn('d.event_id')
      .orderBy([
        { column: 'd.event_id', order: 'asc' },
        { column: 'd.id', order: 'desc' },
      ])
      .select('d.id as delivery_id', 'd.event_id', 'e.uid as event_uid');
    // A few at a time: Temporal answers each start in milliseconds, and a recovery of thousands
    // should not open thousands of calls at once.
    for (let i = 0; i < failed.length; i += 16) {
      await Promise.all(
        failed.slice(i, i + 16).map((f) =>
          starter.startDelivery({
            eventId: f.event_id,
            eventUid: f.event_uid,
            webhookId: ref.webhookId,
            pipelineId: ref.pipelineId,
            tenantId: caller.tenantId,
            resend: { deliveryId: f.delivery_id, token },
          }),
        ),
      );
    }
    return { events: failed.length };
  };
  if (!scope) return recover(randomUUID());
  return db.transaction(async (trx) => {
    const previous = await lockIdempotencyKey(trx, scope, new Date());
    if (previous) return previous as { events: number };
    const answer = await recover(scope.keyHash);
    await rememberAnswer(trx, scope, answer);
    return answer;
  });
}

/**
 * Sends a signed `ping` event to the webhook through the normal delivery path (outbox, relay,
 * delivery workflow), whatever event types and segments it is limited to; it is listed with the
 * webhook's deliveries. An inactive webhook is refused: its deliveries would stop at once.
 */
export async function sendTestEvent(db: Db, caller: Caller, ref: WebhookRef): Promise<{ event_id: number }> {
  const webhook = await requireWebhook(db, caller, ref);
  if (!webhook.is_active) {
    throw new AppError('failed_precondition', 'the webhook is inactive: activate it (is_active true) to test it');
  }
  return db.transaction(async (trx) => {
    const [event] = await trx('events')
      .insert({
        project_id: ref.projectId,
        pipeline_id: ref.pipelineId,
        segment_slug: '',
        segment_name: '',
        user_id: '',
        event_type: 'ping',
        score: 0,
        seq: 0,
      })
      .returning('id');
    await trx('outbox').insert({ event_id: event.id, webhook_id: webhook.id });
    await trx.raw(`SELECT pg_notify('outbox', '')`);
    return { event_id: Number(event.id) };
  });
}

/**
 * Starts a fresh delivery of the event of a delivery (202). Without `Idempotency-Key` every
 * request is a new resend; with one, a retried request answers the first resend's workflow id and
 * starts nothing (the workflow id is derived from the key, so even a lost answer cannot start two).
 */
export async function resendDelivery(
  db: Db,
  starter: DeliveryStarter,
  caller: Caller,
  ref: WebhookRef,
  deliveryIdInput: number,
  idempotencyKey: string | undefined,
  quotas: Pick<Quotas, 'resendsPerMinute'>,
): Promise<{ workflow_id: string }> {
  const deliveryId = requireId(deliveryIdInput, 'delivery_id');
  const scope = idempotencyScope(caller, idempotencyKey, { operation: 'resend_delivery', ...ref, deliveryId });
  await requireWebhook(db, caller, ref);
  const delivery = await db('webhook_deliveries as d')
    .join('events as e', 'e.id', 'd.event_id')
    .where({ 'd.id': deliveryId, 'd.webhook_id': ref.webhookId })
    .first('d.event_id', 'e.uid as event_uid');
  if (!delivery) throw notFound('delivery');
  const start = (token: string) =>
    starter.startDelivery({
      eventId: delivery.event_id,
      eventUid: delivery.event_uid,
      webhookId: ref.webhookId,
      pipelineId: ref.pipelineId,
      tenantId: caller.tenantId,
      resend: { deliveryId, token },
    });
  if (!scope) {
    await db.transaction((trx) => takeResendSlot(trx, ref.webhookId, quotas.resendsPerMinute));
    return { workflow_id: await start(randomUUID()) };
  }
  // The start runs inside the key's transaction: a twin request waits, then replays this answer
  // (a replay takes no resend slot).
  return db.transaction(async (trx) => {
    const previous = await lockIdempotencyKey(trx, scope, new Date());
    if (previous) return previous as { workflow_id: string };
    await takeResendSlot(trx, ref.webhookId, quotas.resendsPerMinute);
    const answer = { workflow_id: await start(scope.keyHash) };
    await rememberAnswer(trx, scope, answer);
    return answer;
  });
}

/**
 * At most `perMinute` resends per webhook in any 60 s (a sliding window kept in PostgreSQL, so
 * every api process shares it); over it, 429 with the seconds until the oldest one leaves.
 */
async function takeResendSlot(trx: Knex.Transaction, webhookId: number, perMinute: number): Promise<void> {
  await trx.raw('SELECT 1 FROM webhooks WHERE id = ? FOR NO KEY UPDATE', [webhookId]);
  await trx('webhook_resends')
    .where({ webhook_id: webhookId })
    .where('at', '<', trx.raw("now() - interval '1 minute'"))
    .delete();
  const { rows } = await trx.raw(
    `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 minute' - now()))::int AS wait
       FROM webhook_resends WHERE webhook_id = ?`,
    [webhookId],
  );
  if (rows[0].n >= perMinute) {
    throw new AppError(
      'rate_limited',
      `at most ${perMinute} resends per minute per webhook (QUOTA_RESENDS_PER_MINUTE)`,
      undefined,
      Math.max(1, rows[0].wait),
    );
  }
  await trx('webhook_resends').insert({ webhook_id: webhookId });
}
