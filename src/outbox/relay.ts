import { listenTo } from '../db/listen.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { startStoredBatch, unstartedBatches } from '../users/batch-lifecycle.js';
import { pendingEvaluations, startEvaluation } from '../segments/evaluation-start.js';

export interface Relay {
  stop(): Promise<void>;
  /** Runs one pass now (tests and shutdown use it). */
  drain(): Promise<void>;
}

const BATCH = 100;

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
}): Relay {
  const { db, starters, log } = deps;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const dispatchOutbox = async (): Promise<number> =>
    db.transaction(async (trx) => {
      const rows = await trx('outbox as o')
        .join('events as e', 'e.id', 'o.event_id')
        .whereNull('o.dispatched_at')
        .orderBy('o.id')
        .limit(BATCH)
        .forUpdate('o')
        .skipLocked()
        .select('o.id', 'o.event_id', 'o.webhook_id', 'e.pipeline_id', 'e.uid as event_uid');
      const done: number[] = [];
      await Promise.all(
        rows.map(async (r) => {
          try {
            await starters.startDelivery({
              eventId: r.event_id,
              eventUid: r.event_uid,
              webhookId: r.webhook_id,
              pipelineId: r.pipeline_id,
            });
            done.push(r.id);
          } catch (err) {
            log.warn('outbox dispatch failed; will retry', { outbox_id: r.id, err: (err as Error).message });
          }
        }),
      );
      if (done.length) await trx('outbox').whereIn('id', done).update({ dispatched_at: trx.fn.now() });
      return rows.length === BATCH && done.length === rows.length ? 1 : 0;
    });

  const startStoredBatches = async () => {
    for (const s of await unstartedBatches(db, BATCH)) {
      try {
        await startStoredBatch(db, starters, s);
      } catch (err) {
        log.warn('batch start failed; will retry', { source_id: s.id, err: (err as Error).message });
        return;
      }
    }
  };

  const startPendingEvaluations = async () => {
    for (const s of await pendingEvaluations(db, BATCH)) {
      try {
        await startEvaluation(db, { starters, log }, s);
      } catch (err) {
        log.warn('segment evaluation start failed; will retry', { segment_pk: s.pk, err: (err as Error).message });
        return;
      }
    }
  };

  const pass = async () => {
    try {
      while (!stopped && (await dispatchOutbox()) > 0);
      if (!stopped) await startStoredBatches();
      if (!stopped) await startPendingEvaluations();
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
      await running;
      await listener.stop();
    },
  };
}
