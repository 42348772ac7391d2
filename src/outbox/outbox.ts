import type { Knex } from 'knex';
import { SUBSCRIBED_SQL } from './subscription.js';

/**
 * The outbox table, and everything that writes it: one row per delivery run to start (an event's
 * delivery to one webhook, a test event, a resend, a recovery), inserted in the transaction of the
 * change it announces and started by the relay (src/relay/). The relay is woken by NOTIFY on
 * OUTBOX_CHANNEL, which PostgreSQL delivers only if that transaction commits, and by a poll.
 */

/** The NOTIFY channel the relay listens on. */
export const OUTBOX_CHANNEL = 'outbox';

type Queryable = Knex | Knex.Transaction;

/** Wakes every relay (at its commit, when `db` is a transaction). */
export async function wakeRelay(db: Queryable): Promise<void> {
  await db.raw(`SELECT pg_notify(?, '')`, [OUTBOX_CHANNEL]);
}

/** Queues a membership event's delivery to each webhook of its pipeline that takes it (subscription.ts). */
export async function queueSubscribedDeliveries(
  trx: Knex.Transaction,
  event: { eventId: number; pipelineId: number; eventType: string; segmentSlug: string },
): Promise<void> {
  await trx.raw(
    `INSERT INTO outbox (event_id, webhook_id)
     SELECT ?, w.id FROM webhooks w WHERE w.pipeline_id = ? AND ${SUBSCRIBED_SQL}
     ON CONFLICT DO NOTHING`,
    [event.eventId, event.pipelineId, event.eventType, event.segmentSlug],
  );
}

/** Queues one event's delivery to one webhook (the test event). */
export async function queueDelivery(trx: Knex.Transaction, row: { eventId: number; webhookId: number }): Promise<void> {
  await trx('outbox').insert({ event_id: row.eventId, webhook_id: row.webhookId });
}

/**
 * Records an operator's resend: started already (`workflowId`), or left for the relay to start
 * when Temporal could not. Either way a recover leaves its event alone while it runs.
 */
export async function recordResend(
  trx: Knex.Transaction,
  row: { eventId: number; webhookId: number; deliveryId: number; token: string; workflowId?: string },
): Promise<void> {
  await trx('outbox').insert({
    event_id: row.eventId,
    webhook_id: row.webhookId,
    kind: 'resend',
    resend_of: row.deliveryId,
    token: row.token,
    workflow_id: row.workflowId ?? null,
    dispatched_at: row.workflowId ? trx.fn.now() : null,
  });
}

/**
 * How long a started run counts as under way at most when none of its attempts ended it: longer
 * than any run can last (six attempts, each wait at most 24 h by Retry-After, 26.6 h by the
 * default schedule), so only a workflow an operator terminated in Temporal is let go, after a week.
 */
const RUN_UNDER_WAY_AT_MOST = `interval '7 days'`;

/**
 * SQL: a run of outbox row `o` is under way, that is not yet started, or started and none of its
 * attempts (their `attempt_key` begins with its workflow id) succeeded or was final. A started row
 * without a workflow id (dispatched by a relay of the previous version during a rolling deploy)
 * reads as ended: at worst an event is sent once more, never left unrecovered for a week.
 */
const RUN_UNDER_WAY = `(o.dispatched_at IS NULL OR (
    o.dispatched_at > now() - ${RUN_UNDER_WAY_AT_MOST} AND o.workflow_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries s
                     WHERE s.event_id = o.event_id AND s.webhook_id = o.webhook_id
                       AND (s.final OR s.status = 'success')
                       AND starts_with(s.attempt_key, o.workflow_id || ':'))))`;

/**
 * Queues a recovery of each event whose delivery to the webhook finally failed since `since` and
 * never succeeded, unless a run of it is under way. Answers how many failed and how many it queued.
 */
export async function queueRecoveries(
  trx: Knex.Transaction,
  webhookId: number,
  since: Date,
): Promise<{ failed: number; queued: number }> {
  const { rows } = await trx.raw(
    `WITH failed AS (
       SELECT DISTINCT ON (d.event_id) d.id AS delivery_id, d.event_id
         FROM webhook_deliveries d
        WHERE d.webhook_id = :webhook AND d.final AND d.created_at >= :since
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries ok
                           WHERE ok.event_id = d.event_id AND ok.webhook_id = d.webhook_id
                             AND ok.status = 'success')
        ORDER BY d.event_id, d.id DESC
     ), queued AS (
       INSERT INTO outbox (event_id, webhook_id, kind, resend_of, token)
       SELECT f.event_id, :webhook, 'recovery', f.delivery_id, gen_random_uuid()
         FROM failed f
        WHERE NOT EXISTS (SELECT 1 FROM outbox o
                           WHERE o.webhook_id = :webhook AND o.event_id = f.event_id AND ${RUN_UNDER_WAY})
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM failed)::int AS failed, (SELECT count(*) FROM queued)::int AS queued`,
    { webhook: webhookId, since },
  );
  return { failed: rows[0].failed, queued: rows[0].queued };
}

/**
 * Rows whose workflow is known to exist: dispatched, with the workflow id their attempts' rows
 * carry (which tells admission and recover whether the run has made its first attempt or ended),
 * and awaiting that first attempt.
 */
export async function markDispatched(
  trx: Knex.Transaction,
  started: [id: number, workflowId: string][],
): Promise<void> {
  if (started.length === 0) return;
  await trx.raw(
    `UPDATE outbox SET dispatched_at = now(), workflow_id = v.workflow_id, awaiting_attempt = true
       FROM unnest(?::bigint[], ?::text[]) AS v(id, workflow_id)
      WHERE outbox.id = v.id`,
    [started.map(([id]) => id), started.map(([, w]) => w)],
  );
}

/** Whether any row waits to be started. */
export async function anyUndispatched(db: Queryable): Promise<boolean> {
  const { rows } = await db.raw('SELECT EXISTS (SELECT 1 FROM outbox WHERE dispatched_at IS NULL) AS waiting');
  return rows[0].waiting;
}

/**
 * A run's first attempt is recorded: it frees a place in its webhook's and tenant's admission
 * (delivery-admission.ts; the relay looks again shortly while rows wait, no NOTIFY per delivery).
 * When the attempt beat the commit of the pass that started its run there is nothing to clear yet:
 * the relay settles it (SETTLE_AWAITING_SQL).
 */
export async function firstAttemptRecorded(
  db: Queryable,
  run: { webhookId: number; eventId: number; workflowId: string },
): Promise<void> {
  await db('outbox')
    .where({ webhook_id: run.webhookId, event_id: run.eventId, workflow_id: run.workflowId })
    .where('awaiting_attempt', true)
    .update({ awaiting_attempt: false });
}
