import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { AppError, invalid, notFound } from '../errors.js';
import { requirePipeline, type PipelineRef } from '../projects/projects.js';
import { holdQuota, pipelineQuota, type Quotas } from '../quotas.js';
import { optionalInt, requireId } from '../validation.js';
import { validateWebhookUrl } from './url.js';
import { queueDelivery, wakeRelay } from '../outbox/outbox.js';

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
  /** Extension: why the service deactivated it (410 Gone, or 5 days of failed deliveries); null otherwise. */
  disabled_reason: string | null;
  /**
   * Extension: while a secret rotation's overlap runs, when it ends (the previous secret stops
   * signing); null otherwise.
   */
  previous_secret_expires_at: Date | null;
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
  /** Extension: the attempt's number in its delivery, from 1. */
  attempt: number;
  /** Extension: the delivery's last attempt (schedule ended, 410, or the webhook stopped it). */
  final: boolean;
  /**
   * Extension: after a failed attempt that is not final, when the delivery's workflow retries
   * (recorded by the attempt, deliver-attempt.ts); null otherwise and for older rows.
   */
  next_attempt_at: Date | null;
  /** Extension: the headers the attempt sent, signatures redacted; null when not sent or recorded before migration 014. */
  request_headers: Record<string, string> | null;
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

/**
 * Seals secrets at rest (AES-256-GCM); see secret-box.ts. The api opens only what it sealed into a
 * stored rotation answer, to answer a retried rotation (rotate-secret.ts).
 */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** Starts the delivery workflow of an event to a webhook (from the outbox), or a resend, and answers its id. */
export interface DeliveryStart {
  eventId: number;
  eventUid: string;
  webhookId: number;
  pipelineId: number;
  /** Temporal's fairness key: tenants' deliveries take turns in the task queue. */
  tenantId: number;
  /**
   * A resend of a delivery, or one event of a recovery; `token` (the outbox row's) names it: one
   * per request, per Idempotency-Key, or per recovery outbox row.
   */
  resend?: { deliveryId: number; token: string; recovery?: boolean };
}

export interface DeliveryStarter {
  startDelivery(args: DeliveryStart): Promise<string>;
  /** The id `startDelivery` gives this delivery's workflow (unless a restored database's twin holds it). */
  deliveryWorkflowId(args: DeliveryStart): string;
}

// Never select secret_sealed into a view: the secret must not be able to leak into an answer.
export const WEBHOOK_COLUMNS = [
  'id',
  'pipeline_id',
  'url',
  'events',
  'is_active',
  'segments',
  'disabled_reason',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
];
const COLUMNS = WEBHOOK_COLUMNS;
/** An overlap that has ended but is not swept yet (secret-sweep.ts, every 5 s) is shown as none. */
export const webhookView = (row: Record<string, any>): WebhookView =>
  ({
    ...row,
    segments: row.segments ?? [],
    previous_secret_expires_at:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()
        ? row.previous_secret_expires_at
        : null,
  }) as WebhookView;
const view = webhookView;

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

export function validateSecret(raw: string): string {
  if (raw.length < 8 || raw.length > 256) throw invalid('secret', 'secret must be a string of 8 to 256 characters');
  return raw;
}

/** Refuses a change of secret while an overlap runs: the answer that started it promised its end. */
export function overlapRunning(endsAt: Date): AppError {
  return new AppError(
    'conflict',
    `a secret rotation is in its overlap until ${endsAt.toISOString()}: the previous secret was promised until then. ` +
      'End the overlap first (POST …/webhooks/{id}/end-secret-overlap), then change the secret',
  );
}

export async function requireWebhook(db: Db, caller: Caller, ref: WebhookRef) {
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
    await holdQuota(
      trx,
      pipelineQuota({
        table: 'webhooks',
        pipelineId: pipeline.pipelineId,
        max: quotas.webhooksPerPipeline,
        setting: 'TENANT_WEBHOOKS_PER_PIPELINE',
      }),
    );
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
    // Replaced at once, as the interface says; not during a rotation's overlap, whose end the
    // rotation promised (409 until it ends or is ended, see rotate-secret.ts).
    patch.secret_sealed = input.secret === null ? null : box.seal(validateSecret(input.secret));
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
  if (input.secret !== undefined && current.previous_secret_expires_at) {
    throw overlapRunning(current.previous_secret_expires_at);
  }
  if (Object.keys(patch).length === 0) return current;
  const [row] = await db('webhooks')
    .where({ id: current.id })
    .modify((q) => {
      // Checked again in the statement: a rotation may have started since the read.
      if (input.secret !== undefined) {
        q.where((w) =>
          w.whereNull('previous_secret_expires_at').orWhere('previous_secret_expires_at', '<=', db.fn.now()),
        );
      }
    })
    .update({ ...patch, updated_at: db.fn.now() })
    .returning(COLUMNS);
  if (!row) {
    // The database's clock decided: ask it why (the api's may differ by a moment).
    const overlap = await db('webhooks')
      .where({ id: current.id })
      .where('previous_secret_expires_at', '>', db.fn.now())
      .first('previous_secret_expires_at');
    if (overlap) throw overlapRunning(overlap.previous_secret_expires_at);
    throw notFound('webhook');
  }
  return view(row);
}

/**
 * Deletes a webhook with its deliveries and outbox rows (cascade), and its test events: a `ping`
 * belongs to one webhook only, and nothing would ever deliver it again.
 */
export async function deleteWebhook(db: Db, caller: Caller, ref: WebhookRef): Promise<void> {
  const current = await requireWebhook(db, caller, ref);
  // Events first, then the webhook: the worker recording a ping's attempt locks them in that order
  // (the foreign keys of its row), so the reverse could deadlock. A ping stored meanwhile (its
  // transaction holds the webhook FOR KEY SHARE, which the delete waits for) has lost its outbox
  // row with the webhook: the last statement finds it by that. A deadlock all the same (the worker
  // recording that very ping) is retried: the delete is idempotent.
  for (let attempt = 1; ; attempt++) {
    try {
      await db.transaction(async (trx) => {
        const pings = `DELETE FROM events WHERE event_type = 'ping' AND pipeline_id = ?`;
        await trx.raw(`${pings} AND id IN (SELECT event_id FROM outbox WHERE webhook_id = ?)`, [
          ref.pipelineId,
          current.id,
        ]);
        await trx('webhooks').where({ id: current.id }).delete();
        await trx.raw(`${pings} AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.event_id = events.id)`, [
          ref.pipelineId,
        ]);
      });
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== '40P01' || attempt >= 3) throw err;
    }
  }
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
      'attempt',
      'final',
      'next_attempt_at',
      'request_headers',
    );
  const deliveries: DeliveryView[] = rows.slice(0, limit);
  return { deliveries, nextBefore: rows.length > limit ? deliveries[deliveries.length - 1].id : undefined };
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
    // Held until commit: a delete waits for this event and removes it with the webhook.
    const held = await trx.raw('SELECT 1 FROM webhooks WHERE id = ? FOR KEY SHARE', [webhook.id]);
    if (held.rows.length === 0) throw notFound('webhook'); // deleted since it was read
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
    await queueDelivery(trx, { eventId: event.id, webhookId: webhook.id });
    await wakeRelay(trx);
    return { event_id: Number(event.id) };
  });
}
