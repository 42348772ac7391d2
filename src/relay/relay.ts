import { listenTo } from '../db/listen.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import { EVALUATIONS_PER_TENANT, type RelayAdmission } from '../fairness/admission.js';
import { anyUndispatched, OUTBOX_CHANNEL } from '../outbox/outbox.js';
import { PACE_MS, RECHECK_MS } from '../outbox/delivery-admission.js';
import { startAdmittedBatches, startUnstartedBatches } from './dispatch-batches.js';
import { startPendingEvaluations } from './dispatch-evaluations.js';
import { dispatchDeliveries } from './dispatch-deliveries.js';
import { startPendingBackfills, startPendingTrainings } from '../labels/training-start.js';

export interface Relay {
  stop(): Promise<void>;
  /** Runs one pass now (tests and shutdown use it). */
  drain(): Promise<void>;
}

/**
 * Moves work from PostgreSQL into Temporal: batches and segment evaluations that admission lets
 * start (src/fairness/admission.ts), outbox rows that delivery admission claims
 * (src/outbox/delivery-admission.ts), and anything whose workflow start failed (Temporal away, or
 * the process died between the commit and the start). Woken at once by NOTIFY from the committing
 * transaction, and by a poll as a safety net (a lost notification, a Temporal outage). Rows are
 * claimed with FOR UPDATE SKIP LOCKED so several workers share the work; a row is marked
 * dispatched only after its workflow is known to exist.
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
  const { db, log } = deps;
  const admission = deps.admission ?? {
    deliveries: { perWebhook: 8, perTenant: 32 },
    evaluationsPerTenant: EVALUATIONS_PER_TENANT,
    batchesPerTenant: 4,
  };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let recheck: NodeJS.Timeout | undefined;

  const startWaiting = async () => {
    await startAdmittedBatches(deps, admission.batchesPerTenant);
    await startPendingEvaluations(deps, admission.evaluationsPerTenant);
    await startPendingTrainings(deps);
    await startPendingBackfills(deps);
  };

  const pass = async () => {
    try {
      // Batches and evaluations first, and again between paced rounds: a tenant's thousands of
      // events must not hold back another tenant's next batch or deploy.
      await startWaiting();
      let round = await dispatchDeliveries(deps, admission.deliveries);
      while (!stopped && round.next !== 'done') {
        if (round.next === 'paced') {
          await new Promise((r) => setTimeout(r, PACE_MS));
          if (!stopped) await startWaiting();
        }
        round = await dispatchDeliveries(deps, admission.deliveries);
      }
      if (!stopped) await startUnstartedBatches(deps);
      // Rows left waiting for admission: look again shortly (see RECHECK_MS). After a refused
      // start (Temporal away) the poll retries instead.
      if (!stopped && !round.refused && !recheck && (await anyUndispatched(db))) {
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
    channel: OUTBOX_CHANNEL,
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
