import { listenTo } from '../db/listen.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { grpcCause } from '../temporal/grpc-cause.js';
import { startStoredBatch, unstartedBatches, type StoredBatch } from '../users/batch-lifecycle.js';
import { startEvaluation } from '../segments/evaluation-start.js';
import {
  admittedEvaluations,
  admitWaitingBatches,
  EVALUATIONS_PER_TENANT,
  type RelayAdmission,
} from '../fairness/admission.js';
import {
  claimDeliveries,
  CLAIM_SIZE,
  PACE_MS,
  RECHECK_MS,
  SETTLE_AWAITING_SQL,
  type ClaimedDelivery,
} from '../fairness/delivery-admission.js';

export interface Relay {
  stop(): Promise<void>;
  /** Runs one pass now (tests and shutdown use it). */
  drain(): Promise<void>;
}

/**
 * Moves outbox rows into Temporal, and starts what admission lets start (src/fairness/admission.ts:
 * batches waiting for a place, segment evaluations; delivery-admission.ts: deliveries) or whose
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
  /** What to start per tenant (src/fairness/admission.ts); tests use the defaults. */
  admission?: RelayAdmission;
}): Relay {
  const { db, starters, log } = deps;
  const admission = deps.admission ?? {
    deliveries: { perWebhook: 8, perTenant: 32 },
    evaluationsPerTenant: EVALUATIONS_PER_TENANT,
    batchesPerTenant: 4,
  };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  /** A start failed in this pass (Temporal away): no quick recheck, the poll retries. */
  let refused = false;
  let recheck: NodeJS.Timeout | undefined;

  /**
   * One round of deliveries: starts what delivery admission claims (src/fairness/delivery-admission.ts)
   * and answers whether to go on at once (a full claim), after PACE_MS (a tenant had more than its
   * share of the round), or not at all (the rest waits for first attempts: RECHECK_MS, the poll).
   */
  const dispatchOutbox = async (): Promise<'more' | 'paced' | 'done'> => {
    // Its own short statement, not in the claim's transaction, which holds its locks while it
    // starts workflows: another relay's settle would wait for that.
    await db.raw(SETTLE_AWAITING_SQL);
    return db.transaction(async (trx) => {
      const { rows: mine, paced, full } = await claimDeliveries(trx, admission.deliveries);
      const done: [number, string][] = [];
      await Promise.all(
        mine.map(async (r: ClaimedDelivery) => {
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
            log.warn('outbox dispatch failed; will retry', {
              outbox_id: r.id,
              err: (err as Error).message,
              cause: grpcCause(err),
            });
          }
        }),
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
      if (paced) return 'paced';
      return full && mine.length > 0 ? 'more' : 'done';
    });
  };

  const startBatches = async (batches: StoredBatch[]) => {
    for (const s of batches) {
      try {
        await startStoredBatch(db, starters, s);
      } catch (err) {
        log.warn('batch start failed; will retry', {
          source_id: s.id,
          err: (err as Error).message,
          cause: grpcCause(err),
        });
        return;
      }
    }
  };
  /** Batches that get a place now (one of their tenant's running batches completed). */
  const startAdmittedBatches = async () =>
    startBatches(await admitWaitingBatches(db, admission.batchesPerTenant, CLAIM_SIZE));

  const startPendingEvaluations = async () => {
    for (const s of await admittedEvaluations(db, CLAIM_SIZE, admission.evaluationsPerTenant)) {
      try {
        await startEvaluation(db, { starters, log }, s);
      } catch (err) {
        log.warn('segment evaluation start failed; will retry', {
          segment_pk: s.pk,
          err: (err as Error).message,
          cause: grpcCause(err),
        });
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
      if (!stopped) await startBatches(await unstartedBatches(db, CLAIM_SIZE));
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
