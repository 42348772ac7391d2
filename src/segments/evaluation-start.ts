import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { wakeRelay } from '../outbox/outbox.js';

/** Starts the workflow that evaluates a deployed segment against the project's existing profiles. */
export interface SegmentEvaluationStarter {
  startSegmentEvaluation(args: {
    segmentPk: number;
    projectId: number;
    /** Temporal's fairness key: tenants' tasks take turns in the task queue. */
    tenantId: number;
    version: number;
    versionUid: string;
  }): Promise<void>;
}

export interface EvaluationDeps {
  starters: SegmentEvaluationStarter;
  log: Logger;
}

export interface PendingEvaluation {
  pk: number;
  project_id: number;
  tenant_id: number;
  version: number;
  version_uid: string;
}

/**
 * A deploy or rule change commits `evaluation_pending` with its version bump, and wakes the relay
 * (NOTIFY outbox), which starts the evaluation here and clears the flag for that version, stamping
 * it as running. If Temporal is away the flag stays and a later pass starts it: a deploy is never
 * left unevaluated.
 */
export async function startEvaluation(db: Db, deps: EvaluationDeps, s: PendingEvaluation): Promise<void> {
  await deps.starters.startSegmentEvaluation({
    segmentPk: s.pk,
    projectId: s.project_id,
    tenantId: Number(s.tenant_id),
    version: s.version,
    versionUid: s.version_uid,
  });
  await db('segments')
    .where({ pk: s.pk, version: s.version })
    .update({ evaluation_pending: false, evaluation_progress_at: db.fn.now() });
}

/** Records an evaluation's progress (a page done), or its end (`done`), if it is still the current version's. */
export async function stampEvaluation(db: Db, segment: { pk: number; version: number }, done: boolean): Promise<void> {
  await db('segments')
    .where({ pk: segment.pk, version: segment.version })
    .update({ evaluation_progress_at: done ? null : db.fn.now() });
  // The relay may admit the tenant's next evaluation now.
  if (done) await wakeRelay(db);
}
