import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import { createAnalyzer, type Analyzer } from '../analysis/analyze.js';
import { createEmbedder } from '../analysis/embedder.js';
import { instrumentEmbedder } from '../metrics/embedder.js';
import { createConditionVectors } from '../segments/condition-vectors.js';
import { createActivities } from '../temporal/activities.js';
import { createWorkers } from '../temporal/worker.js';
import { createDeliveryLimits, everyAtMost } from '../fairness/in-flight.js';
import { startRelay } from '../relay/relay.js';
import { startSecretSweep } from '../webhooks/secret-sweep.js';
import { startRetentionSweep } from '../privacy/retention.js';
import { createFailingTurns } from '../fairness/failing-turns.js';
import {
  createAnalysisActivity,
  createDeliveryGate,
  DELIVERIES_PER_SECOND_WHILE_ANALYSING,
  DELIVERY_YIELD_MAX_MS,
} from '../fairness/delivery-gate.js';
import { relayAdmission } from '../fairness/admission.js';
import { analysisOnThisHost } from '../fairness/colocation.js';
import { defaultHeadsCacheDir, shippedHeadsOn } from '../config.js';

export async function startWorkerRole(deps: {
  config: Config;
  db: Db;
  databaseUrl: string;
  temporalAddress: string;
  /** This installation's task queue (see installationTaskQueue). */
  taskQueue: string;
  /** Which task queues this process polls: analysis (batches, evaluations), deliveries, or both. */
  queues: { analysis: boolean; delivery: boolean };
  starters: Starters;
  /** Asks Temporal which workers poll the analysis queue (colocation.ts). */
  client: Client;
  box: { open(sealed: string): string };
  log: Logger;
}) {
  const { config, db, log, queues } = deps;
  const both = queues.analysis && queues.delivery;
  // The model and its heads (stored, or trained on this embedder's vectors of the corpus) are loaded
  // once per worker process, in the background, so the worker polls at once. A failed load (the
  // embedding API away, PostgreSQL restarting) is tried again by the next activity that needs it.
  // It reports its calls in the worker's metrics.
  const embedder = instrumentEmbedder(createEmbedder(config.embeddings));
  let analyzerPromise: Promise<Analyzer> | undefined;
  // Aborted first at stop: a training (minutes, on this thread) or a wait for another process's
  // ends within seconds, and its transaction with it, which the pool's destroy would wait for.
  const stopping = new AbortController();
  const analyzer = () =>
    (analyzerPromise ??= createAnalyzer(embedder, {
      db,
      cacheDir: defaultHeadsCacheDir(),
      log,
      signal: stopping.signal,
      shippedFile: shippedHeadsOn() ? undefined : null,
    }).catch((err: unknown) => {
      analyzerPromise = undefined;
      throw err;
    }));
  // Settles true once messages can be analysed (false when the first load failed; the next activity
  // tries again): main.ts prints its banner again then, so the banner is the last thing on a
  // first start's terminal, after the training's progress lines.
  const analysisReady = queues.analysis
    ? analyzer().then(
        (a) => (log.info('analyzer ready', { embedder: embedder.name, corpusHash: a.heads.corpusHash }), true),
        (err) => {
          if (stopping.signal.aborted) log.info('analysis heads: loading stopped by the shutdown');
          else log.error('analyzer failed to load', { err });
          return false;
        },
      )
    : undefined;
  // Tenants with a batch not yet completed, read at most every 250 ms by the delivery gate.
  const batchTenants = everyAtMost(250, () => tenantsWithBatches(db));
  // Deliveries yield to analysis, here or waiting anywhere (src/fairness/delivery-gate.ts), where
  // both share the CPU: in this process, or a delivery worker beside an analysis worker on the same
  // host (colocation.ts). Delivery workers on machines of their own never wait for analysis.
  const sharesCpu =
    both || !queues.delivery
      ? async () => true
      : analysisOnThisHost({ client: deps.client, namespace: config.temporal.namespace, taskQueue: deps.taskQueue });
  const analysisActivity = createAnalysisActivity({
    lingerMs: ANALYSIS_LINGER_MS,
    pending: async () => (await sharesCpu()) && (await batchTenants()).size > 0,
  });
  const off = config.fairnessOff;
  const gate =
    queues.delivery && !off.has('gate')
      ? createDeliveryGate({
          ratePerSecond: DELIVERIES_PER_SECOND_WHILE_ANALYSING,
          maxWaitMs: DELIVERY_YIELD_MAX_MS,
          analysis: analysisActivity,
        })
      : undefined;
  const activities = createActivities({
    db,
    analysisActivity,
    deliveryGate: gate,
    analyzer,
    conditionVectors: createConditionVectors(embedder),
    openSecret: (sealed) => deps.box.open(sealed),
    webhookTimeoutMs: config.webhooks.timeoutMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    deliveryLimits: createDeliveryLimits({ ...config.deliveryLimits, attemptTimeoutMs: config.webhooks.timeoutMs, db }),
    failingTurns: off.has('failing-turns') ? undefined : createFailingTurns(),
    log,
  });
  const { workers, connection, taskQueues } = await createWorkers(
    config,
    deps.temporalAddress,
    deps.taskQueue,
    queues,
    activities,
    log,
  );
  const running = Promise.all(workers.map((w) => w.run()));
  running.catch((err: unknown) => log.error('worker stopped', { err }));
  const relay = startRelay({
    db,
    databaseUrl: deps.databaseUrl,
    starters: deps.starters,
    log,
    admission: relayAdmission(config),
  });
  const stopSecretSweep = startSecretSweep({ db, log });
  const stopRetentionSweep = startRetentionSweep({ db, log, everyMs: config.retentionSweepMs });
  const stopSweep = () => {
    stopSecretSweep();
    stopRetentionSweep();
  };
  return {
    taskQueues,
    analysisReady,
    async stop() {
      // A training in progress ends at its next step and rolls its transaction back (the pool's
      // destroy would wait for that connection); awaited below.
      const loading = analyzerPromise;
      stopping.abort(new Error('the worker is stopping'));
      stopSweep();
      analysisActivity.stop();
      await relay.stop();
      for (const w of workers) w.shutdown();
      await running.catch(() => undefined);
      await loading?.catch(() => undefined);
      await connection.close();
    },
  };
}

/**
 * How long after its last analysis activity a worker still counts as analysing: a batch's steps
 * (its workflow task, the next chunk, the next batch of a tenant that sends one after another)
 * come tens of milliseconds apart, and deliveries that burst into each gap would fill it.
 */
const ANALYSIS_LINGER_MS = 250;

/** Tenants with a batch not yet completed: they have analysis work, queued or running. */
async function tenantsWithBatches(db: Db): Promise<Set<number>> {
  const rows: { tenant_id: string | number }[] = await db('sources as s')
    .join('projects as p', 'p.id', 's.project_id')
    .whereNull('s.completed_at')
    .distinct('p.tenant_id');
  return new Set(rows.map((r) => Number(r.tenant_id)));
}
