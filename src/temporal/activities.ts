import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Analyzer } from '../analysis/analyze.js';
import type { ConditionVectors } from '../segments/condition-vectors.js';
import { processChunk, type ProcessChunkInput } from '../ingest/process-chunk.js';
import { evaluateSegmentPage, type EvaluateSegmentPageInput } from '../segments/evaluate-page.js';
import { deliverAttempt, type DeliverAttemptInput } from '../webhooks/deliver-attempt.js';
import { completeBatch } from '../ingest/batch-lifecycle.js';
import { trainLabelVersion, type TrainLabelVersionInput } from '../labels/train-version.js';
import { backfillLabelPage, type BackfillLabelPageInput } from '../labels/backfill-page.js';
import { WaitYourTurn, type DeliveryLimits } from '../fairness/in-flight.js';
import type { AnalysisActivity, DeliveryGate } from '../fairness/delivery-gate.js';
import type { FailingTurns } from '../fairness/failing-turns.js';
import { createDeliveryFairness } from '../fairness/delivery-fairness.js';
import { createAnalysisTurns } from '../fairness/analysis-turns.js';
import { batchesCompleted, batchesFailed, messagesAnalysed } from '../metrics/registry.js';

export interface ActivityDeps {
  db: Db;
  analyzer: () => Promise<Analyzer>;
  conditionVectors: ConditionVectors;
  openSecret: (sealed: string) => string;
  webhookTimeoutMs: number;
  allowPrivateNetworks: boolean;
  deliveryLimits?: DeliveryLimits;
  /** Told when analysis activities run, so that deliveries can yield to them. */
  analysisActivity?: AnalysisActivity;
  /** Delivery attempts wait here while the worker analyses (absent: never). */
  deliveryGate?: DeliveryGate;
  /** Attempts to failing webhooks take turns with other tenants' deliveries (absent: never). */
  failingTurns?: FailingTurns;
  log: Logger;
}

/**
 * The retry of a task sent back to wait its turn: soon at first, then less often (up to `maxMs`,
 * 5 s unless the bound says otherwise, with jitter) so that a long backlog does not keep the task
 * queue busy with tasks that go straight back.
 */
export function waitYourTurnDelayMs(attempt: number, random = Math.random, maxMs = 5_000): number {
  const base = Math.min(maxMs, 250 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.5 + random()));
}

async function turnTaken<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof WaitYourTurn)) throw err;
    throw ApplicationFailure.create({
      type: 'WaitYourTurn',
      message: err.message,
      nextRetryDelay: waitYourTurnDelayMs(Context.current().info.attempt, Math.random, err.maxDelayMs),
      // Benign: the SDK logs it at DEBUG instead of a WARN with a stack trace. In the fairness
      // bench a hanging receiver's retries were sent back 1,729 times in 5 minutes, each one a
      // formatted stack trace on the worker's main thread.
      category: ApplicationFailureCategory.BENIGN,
    });
  }
}

/** Activities are built from their dependencies; workflows import only the type. */
export function createActivities(deps: ActivityDeps) {
  // Heartbeats let Temporal notice a killed worker in seconds instead of waiting for the timeout.
  const heartbeat = () => Context.current().heartbeat();
  const analysisTurn = createAnalysisTurns({ activity: deps.analysisActivity });
  /** Analysis work in its tenant's turn, on its tenant's lane (src/fairness/analysis-turns.ts). */
  const fairly = <T>(tenant: () => Promise<number | undefined>, work: (lane: number | undefined) => Promise<T>) =>
    analysisTurn({ tenant }, work);
  const tenantOf = async (table: 'sources' | 'segments' | 'labels', key: { id: number } | { pk: number }) => {
    const [column, value] = Object.entries(key)[0];
    const row = await deps
      .db(`${table} as x`)
      .join('projects as p', 'p.id', 'x.project_id')
      .where(`x.${column}`, value)
      .first('p.tenant_id');
    return row ? Number(row.tenant_id) : undefined;
  };
  const delivery = createDeliveryFairness({
    limits: deps.deliveryLimits,
    gate: deps.deliveryGate,
    turns: deps.failingTurns,
  });
  return {
    processChunk: async (input: ProcessChunkInput) => {
      const info = Context.current().info;
      const started = Date.now();
      const out = await turnTaken(() =>
        fairly(
          () => tenantOf('sources', { id: input.sourceId }),
          (lane) => processChunk({ ...deps, heartbeat, lane }, input),
        ),
      );
      // queued_ms: from this attempt's scheduling to its start here (Temporal's task queue);
      // run_ms: its wait for its tenant's turn in this worker, then the chunk itself. A chunk sent
      // back to wait logs nothing.
      deps.log.info('chunk done', {
        source_id: input.sourceId,
        from: input.from,
        attempt: info.attempt,
        queued_ms: started - info.currentAttemptScheduledTimestampMs,
        run_ms: Date.now() - started,
      });
      messagesAnalysed.inc(out.processed);
      return out;
    },
    completeBatch: async (input: Parameters<typeof completeBatch>[1]) => {
      await completeBatch(deps.db, input);
      batchesCompleted.inc();
      if (input.failed > 0) batchesFailed.inc();
    },
    evaluateSegmentPage: (input: EvaluateSegmentPageInput) =>
      turnTaken(() =>
        fairly(
          () => tenantOf('segments', { pk: input.segmentPk }),
          (lane) => evaluateSegmentPage({ ...deps, heartbeat, lane }, input),
        ),
      ),
    trainLabelVersion: (input: TrainLabelVersionInput) =>
      turnTaken(() =>
        fairly(
          () => tenantOf('labels', { id: input.labelId }),
          (lane) =>
            trainLabelVersion(
              { db: deps.db, embedder: async () => (await deps.analyzer()).embedder, lane, heartbeat, log: deps.log },
              input,
            ),
        ),
      ),
    backfillLabelPage: (input: BackfillLabelPageInput) =>
      turnTaken(() =>
        fairly(
          () => tenantOf('labels', { id: input.labelId }),
          (lane) => backfillLabelPage({ ...deps, heartbeat, lane }, input),
        ),
      ),
    deliverAttempt: (input: DeliverAttemptInput) =>
      turnTaken(async () => {
        await delivery.atStart(input.webhookId);
        return deliverAttempt(
          {
            db: deps.db,
            openSecret: deps.openSecret,
            timeoutMs: deps.webhookTimeoutMs,
            allowPrivateNetworks: deps.allowPrivateNetworks,
            fairness: delivery,
            log: deps.log,
          },
          input,
        );
      }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
