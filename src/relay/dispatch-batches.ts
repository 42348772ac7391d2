import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import { startInOrder } from './start-in-order.js';
import { CLAIM_SIZE } from '../outbox/delivery-admission.js';
import {
  admitWaitingBatches,
  startStoredBatch,
  unstartedBatches,
  type StoredBatch,
} from '../ingest/batch-lifecycle.js';

type Deps = { db: Db; starters: Starters; log: Logger };

const startBatches = (deps: Deps, batches: StoredBatch[]) =>
  startInOrder(deps.log, batches, (s) => startStoredBatch(deps.db, deps.starters, s), {
    message: 'batch start failed; will retry',
    ids: (s) => ({ source_id: s.id }),
  });

/** Batches that get a place now (one of their tenant's running batches completed). */
export async function startAdmittedBatches(deps: Deps, perTenant: number): Promise<void> {
  await startBatches(deps, await admitWaitingBatches(deps.db, perTenant, CLAIM_SIZE));
}

/** The safety net: admitted batches whose start failed or whose starter (an api process) died. */
export async function startUnstartedBatches(deps: Deps): Promise<void> {
  await startBatches(deps, await unstartedBatches(deps.db, CLAIM_SIZE));
}
