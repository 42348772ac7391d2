import { listenTo } from '../db/listen.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { admitWaitingBatches, startStoredBatch, unstartedBatches, type StoredBatch } from '../users/batch-lifecycle.js';
import { admittedEvaluations, startEvaluation } from '../segments/evaluation-start.js';

export interface Relay {
  stop(): Promise<void>;
  /** Runs one pass now (tests and shutdown use it). */
  drain(): Promise<void>;
}

const BATCH = 100;
/**
 * Delivery workflows a tenant may have started per relay pass, and the pause after a pass in which
 * a tenant had more: at most 100 starts per tenant per second. A burst of one tenant's events
 * (200 webhooks x 10 users) then enters Temporal at a pace, interleaved with other tenants' events.
 */
const TENANT_STARTS_PER_PASS = 25;
const PACE_MS = 250;
/**
 * While rows wait for admission, the relay looks again this soon: a first attempt frees a place
 * without a NOTIFY (one per delivery woke every relay for a pass each, the most PostgreSQL work per
 * delivery), so at most 10 passes a second per relay admit whatever has been freed meanwhile.
 */
const RECHECK_MS = 100;
/**
 * A delivery workflow started but whose first attempt is not recorded yet counts against its
 * tenant's admission for this long at most (a workflow an operator terminated never records one).
 */
const UNATTEMPTED_WINDOW = `interval '5 minutes'`;

/**
 * Clears `awaiting_attempt` where the run's first attempt is recorded (the attempt clears it
 * itself, but an attempt faster than the commit of the pass that started its run finds nothing to
 * clear yet) or its window has passed, so the partial index keeps only runs still awaiting.
 */
export const SETTLE_AWAITING_SQL = `UPDATE outbox o SET awaiting_attempt = false
   WHERE o.awaiting_attempt
     AND (o.dispatched_at <= now() - ${UNATTEMPTED_WINDOW}
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
            WHERE o3.awaiting_attempt AND o3.dispatched_at > now() - ${UNATTEMPTED_WINDOW}
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
          LIMIT ${BATCH}
          FOR UPDATE OF o SKIP LOCKED`;

/**
 * Moves outbox rows into Temporal, and starts stored batches and segment evaluations whose
 * workflow start failed (Temporal away, or the process died between the commit and the start).
 * Woken at once by NOTIFY from the committing transaction, and by a poll as a safety net (a lost
 * notification, a Temporal outage). Rows are claimed with FOR UPDATE SKIP LOCKED so several
 * workers share the work; a row is marked dispatched only after its workflow is known to exist.
 */
export function startRelay(deps: {
  db: Db;
  databaseUrl: string;
  starters: Starters;
  log: Logger;
  pollMs?: number;
  /**
   * Delivery workflows of one webhook, and of one tenant, that may wait for their first attempt at
   * once (default 8 and 32: twice WEBHOOK_MAX_IN_FLIGHT and TENANT_MAX_DELIVERIES_IN_FLIGHT).
   * Beyond it the events wait in the outbox, where waiting costs nothing: in Temporal each one
   * would be a task sent back again and again until the in-flight bounds let it run, and that
   * churn takes the server's CPU from every other tenant. Per webhook too, so that a receiver
   * that hangs holds back its own events, not its tenant's other webhooks.
   */
  admit?: { perWebhook: number; perTenant: number };
  /** Segment evaluations of one tenant that run at once (SEGMENT_EVALUATIONS_PER_TENANT, default 2). */
  evaluationsPerTenant?: number;
  /** Batch workflows of one tenant that run at once (TENANT_BATCHES_RUNNING, default 4). */
  batchesPerTenant?: number;
}): Relay {
  const { db, starters, log } = deps;
  const admit = deps.admit ?? { perWebhook: 8, perTenant: 32 };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  /** A start failed in this pass (Temporal away): no quick recheck, the poll retries. */
  let refused = false;
  let recheck: NodeJS.Timeout | undefined;

  /**
   * One pass over the outbox, fair between tenants: at most TENANT_STARTS_PER_PASS rows of each
   * tenant, oldest first, and no more than the webhook's and the tenant's admission leave (`admit`
   * minus their deliveries still waiting for a first attempt). Answers whether to go on at once (a full
   * batch), after PACE_MS (a tenant had more than its share: the rest waits its turn in the
   * outbox, where waiting costs nothing), or not at all (a tenant at its admission bound is
   * picked up again by the NOTIFY of a first attempt, or the poll).
   */
  const dispatchOutbox = async (): Promise<'more' | 'paced' | 'done'> => {
    // Its own short statement, not in the claim's transaction, which holds its locks while it
    // starts workflows: another relay's settle would wait for that.
    await db.raw(SETTLE_AWAITING_SQL);
    return db.transaction(async (trx) => {
      const { rows } = await trx.raw(DISPATCH_SQL, [admit.perWebhook, admit.perTenant]);
      // Row `allowed + 1` of a tenant is only read to know that tenant has more. Over the pass's
      // share: go on after PACE_MS. Over its admission: go on when a first attempt is recorded.
      type Row = { n: string; allowed: string };
      const capped = rows.some(
        (r: Row) => Number(r.n) > Number(r.allowed) && Number(r.allowed) >= TENANT_STARTS_PER_PASS,
      );
      const mine = rows.filter((r: Row) => Number(r.n) <= Number(r.allowed));
      const done: [number, string][] = [];
      await Promise.all(
        mine.map(
          async (r: {
            id: number;
            event_id: number;
            webhook_id: number;
            kind: 'event' | 'resend' | 'recovery';
            resend_of: number | null;
            token: string | null;
            pipeline_id: number;
            tenant_id: string;
            event_uid: string;
          }) => {
            try {
              const workflowId = await starters.startDelivery({
                eventId: r.event_id,
                eventUid: r.event_uid,
                webhookId: r.webhook_id,
                pipelineId: r.pipeline_id,
                tenantId: Number(r.tenant_id),
                ...(r.kind !== 'event' && {
                  resend: { deliveryId: Number(r.resend_of), token: r.token!, recovery: r.kind === 'recovery' },
                }),
              });
              done.push([Number(r.id), workflowId]);
            } catch (err) {
              log.warn('outbox dispatch failed; will retry', { outbox_id: r.id, err: (err as Error).message });
            }
          },
        ),
      );
      // The workflow id goes with the row: its attempts' rows carry it, which tells the admission
      // (above) and recover (webhooks/redeliver.ts) whether the run has made its first attempt or ended.
      if (done.length) {
        await trx.raw(
          `UPDATE outbox SET dispatched_at = now(), workflow_id = v.workflow_id, awaiting_attempt = true
             FROM unnest(?::bigint[], ?::text[]) AS v(id, workflow_id)
            WHERE outbox.id = v.id`,
          [done.map(([id]) => id), done.map(([, w]) => w)],
        );
      }
      if (done.length < mine.length) {
        refused = true; // Temporal refused: the poll tries again
        return 'done';
      }
      if (capped) return 'paced';
      return rows.length === BATCH && mine.length > 0 ? 'more' : 'done';
    });
  };

  const startBatches = async (batches: StoredBatch[]) => {
    for (const s of batches) {
      try {
        await startStoredBatch(db, starters, s);
      } catch (err) {
        log.warn('batch start failed; will retry', { source_id: s.id, err: (err as Error).message });
        return;
      }
    }
  };
  /** Batches that get a place now (one of their tenant's running batches completed). */
  const startAdmittedBatches = async () =>
    startBatches(await admitWaitingBatches(db, deps.batchesPerTenant ?? 4, BATCH));

  const startPendingEvaluations = async () => {
    for (const s of await admittedEvaluations(db, BATCH, deps.evaluationsPerTenant ?? 2)) {
      try {
        await startEvaluation(db, { starters, log }, s);
      } catch (err) {
        log.warn('segment evaluation start failed; will retry', { segment_pk: s.pk, err: (err as Error).message });
        return;
      }
    }
  };

  const pass = async () => {
    refused = false;
    try {
      // Batches and evaluations first, and again between paced rounds: a tenant's thousands of
      // events must not hold back another tenant's next batch or deploy.
      await startAdmittedBatches();
      await startPendingEvaluations();
      for (let next = await dispatchOutbox(); !stopped && next !== 'done'; next = await dispatchOutbox()) {
        if (next === 'paced') {
          await new Promise((r) => setTimeout(r, PACE_MS));
          if (!stopped) await startAdmittedBatches();
          if (!stopped) await startPendingEvaluations();
        }
      }
      // The safety net, once a pass: admitted batches whose start failed or whose starter died.
      if (!stopped) await startBatches(await unstartedBatches(db, BATCH));
      // Rows left waiting for admission: look again shortly (see RECHECK_MS).
      if (!stopped && !refused && !recheck) {
        const { rows } = await db.raw('SELECT EXISTS (SELECT 1 FROM outbox WHERE dispatched_at IS NULL) AS waiting');
        if (rows[0].waiting)
          recheck = setTimeout(() => {
            recheck = undefined;
            void kick();
          }, RECHECK_MS);
      }
    } catch (err) {
      log.warn('relay pass failed', { err: (err as Error).message });
    }
  };

  const kick = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
    return running;
  };

  const timer = setInterval(() => void kick(), deps.pollMs ?? 2_000);
  const listener = listenTo({
    databaseUrl: deps.databaseUrl,
    channel: 'outbox',
    onNotify: () => void kick(),
    log,
    whileDown: 'relay polling only',
  });
  void kick();

  return {
    drain: kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(recheck);
      await running;
      await listener.stop();
    },
  };
}
