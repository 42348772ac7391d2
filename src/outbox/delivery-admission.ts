import type { Knex } from 'knex';
import { STALE_AFTER } from '../db/stale-after.js';

/**
 * Delivery admission, the relay's claim: which outbox rows it starts as delivery workflows now.
 * The relay starts a webhook's runs only while fewer than `admit.perWebhook` of them wait for
 * their first attempt, and a tenant's only while fewer than `admit.perTenant` do (twice the
 * in-flight bounds: src/fairness/admission.ts). Beyond it the events wait in the outbox, where waiting costs
 * nothing: in Temporal each one would be a task sent back again and again until the in-flight
 * bounds let it run, and that churn takes the server's CPU from every other tenant. Per webhook
 * too, so that a receiver that hangs holds back its own events, not its tenant's other webhooks.
 * A run that never records a first attempt (terminated by an operator) stops counting after
 * STALE_AFTER.
 */

/** Rows one claim takes at most. */
export const CLAIM_SIZE = 100;
/**
 * Delivery workflows a tenant may have started per relay pass, and the pause after a pass in which
 * a tenant had more: at most 100 starts per tenant per second. A burst of one tenant's events
 * (200 webhooks x 10 users) then enters Temporal at a pace, interleaved with other tenants' events.
 */
export const TENANT_STARTS_PER_PASS = 25;
export const PACE_MS = 250;
/**
 * While rows wait for admission, the relay looks again this soon: a first attempt frees a place
 * without a NOTIFY (one per delivery woke every relay for a pass each, the most PostgreSQL work per
 * delivery), so at most 10 passes a second per relay admit whatever has been freed meanwhile.
 */
export const RECHECK_MS = 100;
/**
 * Clears `awaiting_attempt` where the run's first attempt is recorded (the attempt clears it
 * itself, but an attempt faster than the commit of the pass that started its run finds nothing to
 * clear yet) or its window has passed, so the partial index keeps only runs still awaiting.
 */
export const SETTLE_AWAITING_SQL = `UPDATE outbox o SET awaiting_attempt = false
   WHERE o.awaiting_attempt
     AND (o.dispatched_at <= now() - ${STALE_AFTER}
          OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.attempt_key = o.workflow_id || ':1'))`;

/**
 * One pass's claim: the rows to start now, fair between tenants (see dispatchOutbox). Bindings:
 * the admission per webhook, then per tenant. Its cost per pass is the runs awaiting a first
 * attempt (a partial index holds only those), the webhooks with undispatched rows, and at most the
 * admission's rows of each: not the whole backlog (EXPLAIN ANALYZE at 10,000 pending rows in the
 * deliveries bench).
 */
export const DISPATCH_SQL = `WITH waiting AS (
           SELECT o3.webhook_id, p3.tenant_id
             FROM outbox o3
             JOIN events e3 ON e3.id = o3.event_id
             JOIN projects p3 ON p3.id = e3.project_id
            WHERE o3.awaiting_attempt AND o3.dispatched_at > now() - ${STALE_AFTER}
              -- The flag is a hint: a first attempt can be recorded before the pass that started
              -- its run has committed the flag (SETTLE_AWAITING clears those); the row is the truth.
              AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.attempt_key = o3.workflow_id || ':1')
         ), per_webhook AS (SELECT webhook_id, count(*) AS n FROM waiting GROUP BY webhook_id),
         per_tenant AS (SELECT tenant_id, count(*) AS n FROM waiting GROUP BY tenant_id),
         hooks AS (SELECT DISTINCT webhook_id FROM outbox WHERE dispatched_at IS NULL),
         pending AS (
           SELECT c.id, p.tenant_id
             FROM hooks h
             LEFT JOIN per_webhook pw ON pw.webhook_id = h.webhook_id
             -- A webhook's fresh events go before its recovered ones: a recovery of thousands
             -- does not hold back what happens now.
             CROSS JOIN LATERAL (
               SELECT o2.id, o2.event_id FROM outbox o2
                WHERE o2.webhook_id = h.webhook_id AND o2.dispatched_at IS NULL
                ORDER BY o2.kind = 'recovery', o2.id
                LIMIT GREATEST(0, ?::int - coalesce(pw.n, 0))
             ) c
             JOIN events e2 ON e2.id = c.event_id
             JOIN projects p ON p.id = e2.project_id
         ), admissible AS (
           SELECT pending.id, pending.tenant_id,
                  row_number() OVER (PARTITION BY pending.tenant_id ORDER BY pending.id) AS n,
                  LEAST(${TENANT_STARTS_PER_PASS}, ? - coalesce(pt.n, 0)) AS allowed
             FROM pending
             LEFT JOIN per_tenant pt ON pt.tenant_id = pending.tenant_id
         )
         SELECT o.id, o.event_id, o.webhook_id, o.kind, o.resend_of, o.token,
                e.pipeline_id, e.uid AS event_uid, x.tenant_id, x.n, x.allowed
           FROM outbox o
           JOIN events e ON e.id = o.event_id
           JOIN admissible x ON x.id = o.id
          WHERE x.n <= ${TENANT_STARTS_PER_PASS + 1} AND x.n <= x.allowed + 1
          ORDER BY x.n, o.id
          LIMIT ${CLAIM_SIZE}
          FOR UPDATE OF o SKIP LOCKED`;

export interface ClaimedDelivery {
  id: number;
  event_id: number;
  webhook_id: number;
  kind: 'event' | 'resend' | 'recovery';
  resend_of: number | null;
  token: string | null;
  pipeline_id: number;
  tenant_id: string;
  event_uid: string;
}

/**
 * Claims the rows to start now (locked until `trx` ends), and says whether to go on: `paced` when
 * a tenant had more than its share of this pass (the rest waits PACE_MS), `full` when the claim
 * was full. Row `allowed + 1` of a tenant is only read to know that tenant has more.
 */
export async function claimDeliveries(
  trx: Knex.Transaction,
  admit: { perWebhook: number; perTenant: number },
): Promise<{ rows: ClaimedDelivery[]; paced: boolean; full: boolean }> {
  const { rows } = await trx.raw(DISPATCH_SQL, [admit.perWebhook, admit.perTenant]);
  type Row = ClaimedDelivery & { n: string; allowed: string };
  const paced = rows.some((r: Row) => Number(r.n) > Number(r.allowed) && Number(r.allowed) >= TENANT_STARTS_PER_PASS);
  const mine = rows.filter((r: Row) => Number(r.n) <= Number(r.allowed));
  return { rows: mine, paced, full: rows.length === CLAIM_SIZE };
}
