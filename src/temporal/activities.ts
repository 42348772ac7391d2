import { Context } from '@temporalio/activity';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Analyzer } from '../analysis/analyze.js';
import type { SemanticCache } from '../segments/semantic-cache.js';
import { processChunk, type ProcessChunkInput } from '../users/process-chunk.js';
import { evaluateSegmentPage, type EvaluateSegmentPageInput } from '../segments/evaluate-page.js';
import { deliverAttempt, type DeliverAttemptInput } from '../webhooks/deliver-attempt.js';
import { completeBatch } from '../users/batch-lifecycle.js';

export interface ActivityDeps {
  db: Db;
  analyzer: () => Promise<Analyzer>;
  semanticCache: SemanticCache;
  openSecret: (sealed: string) => string;
  webhookTimeoutMs: number;
  allowPrivateNetworks: boolean;
  log: Logger;
}

/** Activities are built from their dependencies; workflows import only the type. */
export function createActivities(deps: ActivityDeps) {
  // Heartbeats let Temporal notice a killed worker in seconds instead of waiting for the timeout.
  const heartbeat = () => Context.current().heartbeat();
  return {
    processChunk: (input: ProcessChunkInput) => processChunk({ ...deps, heartbeat }, input),
    completeBatch: (input: Parameters<typeof completeBatch>[1]) => completeBatch(deps.db, input),
    evaluateSegmentPage: (input: EvaluateSegmentPageInput) => evaluateSegmentPage({ ...deps, heartbeat }, input),
    deliverAttempt: (input: DeliverAttemptInput) =>
      deliverAttempt(
        {
          db: deps.db,
          openSecret: deps.openSecret,
          timeoutMs: deps.webhookTimeoutMs,
          allowPrivateNetworks: deps.allowPrivateNetworks,
          log: deps.log,
        },
        input,
      ),
  };
}

export type Activities = ReturnType<typeof createActivities>;
