import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { grpcCause } from '../temporal/grpc-cause.js';
import { CLAIM_SIZE } from '../outbox/delivery-admission.js';
import { admittedEvaluations } from '../fairness/admission.js';
import { startEvaluation } from '../segments/evaluation-start.js';

/** Starts the segment evaluations admission lets run; the first start that fails ends the round. */
export async function startPendingEvaluations(
  deps: { db: Db; starters: Starters; log: Logger },
  perTenant: number,
): Promise<void> {
  for (const s of await admittedEvaluations(deps.db, CLAIM_SIZE, perTenant)) {
    try {
      await startEvaluation(deps.db, { starters: deps.starters, log: deps.log }, s);
    } catch (err) {
      deps.log.warn('segment evaluation start failed; will retry', {
        segment_pk: s.pk,
        err: (err as Error).message,
        cause: grpcCause(err),
      });
      return;
    }
  }
}
