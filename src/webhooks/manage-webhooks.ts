import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { AppError, invalid, notFound } from '../errors.js';
import { requirePipeline, type PipelineRef } from '../projects/projects.js';
import { holdPipelineQuota, type Quotas } from '../quotas.js';
import { optionalInt, requireId } from '../validation.js';
import { validateWebhookUrl } from './url.js';
import { idempotencyScope, lockIdempotencyKey, rememberAnswer } from '../idempotency.js';

export const EVENT_TYPES = ['user_added', 'user_removed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface WebhookView {
  id: number;
  pipeline_id: number;
  url: string;
  events: EventType[];
  is_active: boolean;
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
  created_at: Date;
}

export interface CreateWebhookInput {
  url: string;
  /** Absent or null: deliveries are sent unsigned. */
  secret?: string | null;
  /** Event type names; both when absent. */
  events?: string[];
}

/** Absent fields stay as they are; `secret: null` removes the secret. */
export interface UpdateWebhookInput {
  url?: string;
  secret?: string | null;
  events?: string[];
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
    /** A resend of a delivery; `token` names this resend (one per request, or per Idempotency-Key). */
    resend?: { deliveryId: number; token: string };
  }): Promise<string>;
}

// Never select secret_sealed into a view: the secret must not be able to leak into an answer.
const COLUMNS = ['id', 'pipeline_id', 'url', 'events', 'is_active', 'created_at', 'updated_at'];

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
  return row as WebhookView;
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
      })
      .returning(COLUMNS);
    return row;
  });
}

export async function listWebhooks(db: Db, caller: Caller, pipeline: PipelineRef): Promise<WebhookView[]> {
  await requirePipeline(db, caller, pipeline);
  return db('webhooks').where({ pipeline_id: pipeline.pipelineId }).orderBy('id').select(COLUMNS);
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
  if (input.secret !== undefined)
    patch.secret_sealed = input.secret === null ? null : box.seal(validateSecret(input.secret));
  if (input.isActive !== undefined) patch.is_active = input.isActive;
  const current = await requireWebhook(db, caller, ref);
  if (Object.keys(patch).length === 0) return current;
  const [row] = await db('webhooks')
    .where({ id: current.id })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning(COLUMNS);
  return row;
}

export async function deleteWebhook(db: Db, caller: Caller, ref: WebhookRef): Promise<void> {
  const current = await requireWebhook(db, caller, ref);
  await db('webhooks').where({ id: current.id }).delete();
}

export async function listDeliveries(
  db: Db,
  caller: Caller,
  ref: WebhookRef,
  q: { limit?: number },
): Promise<DeliveryView[]> {
  const limit = optionalInt(q.limit, 'limit', 1, 200) ?? 50;
  await requireWebhook(db, caller, ref);
  return db('webhook_deliveries')
    .where({ webhook_id: ref.webhookId })
    .orderBy('id', 'desc')
    .limit(limit)
    .select('id', 'event_id', 'webhook_id', 'status', 'status_code', 'response_body', 'duration_ms', 'created_at');
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
