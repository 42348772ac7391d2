import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import { startInOrder } from './start-in-order.js';
import { CLAIM_SIZE } from '../outbox/delivery-admission.js';
import { admittedEvaluations } from '../fairness/admission.js';
import { startEvaluation } from '../segments/evaluation-start.js';

/** Starts the segment evaluations admission lets run, in order. */
export async function startPendingEvaluations(
  deps: { db: Db; starters: Starters; log: Logger },
  perTenant: number,
): Promise<void> {
  const admitted = await admittedEvaluations(deps.db, CLAIM_SIZE, perTenant);
  await startInOrder(
    deps.log,
    admitted,
    (s) => startEvaluation(deps.db, { starters: deps.starters, log: deps.log }, s),
    {
      message: 'segment evaluation start failed; will retry',
      ids: (s) => ({ segment_pk: s.pk }),
    },
  );
}
