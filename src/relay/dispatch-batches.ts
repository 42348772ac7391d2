import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { grpcCause } from '../temporal/grpc-cause.js';
import { CLAIM_SIZE } from '../outbox/delivery-admission.js';
import {
  admitWaitingBatches,
  startStoredBatch,
  unstartedBatches,
  type StoredBatch,
} from '../ingest/batch-lifecycle.js';

type Deps = { db: Db; starters: Starters; log: Logger };

/** Starts the batches in order; the first start that fails ends the round (the next pass retries). */
async function startBatches(deps: Deps, batches: StoredBatch[]): Promise<void> {
  for (const s of batches) {
    try {
      await startStoredBatch(deps.db, deps.starters, s);
    } catch (err) {
      deps.log.warn('batch start failed; will retry', {
        source_id: s.id,
        err: (err as Error).message,
        cause: grpcCause(err),
      });
      return;
    }
  }
}

/** Batches that get a place now (one of their tenant's running batches completed). */
export async function startAdmittedBatches(deps: Deps, perTenant: number): Promise<void> {
  await startBatches(deps, await admitWaitingBatches(deps.db, perTenant, CLAIM_SIZE));
}

/** The safety net: admitted batches whose start failed or whose starter (an api process) died. */
export async function startUnstartedBatches(deps: Deps): Promise<void> {
  await startBatches(deps, await unstartedBatches(deps.db, CLAIM_SIZE));
}
