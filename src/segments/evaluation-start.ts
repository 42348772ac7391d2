import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';

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
 * A deploy or rule change commits `evaluation_pending` with its version bump; this starts the
 * evaluation and clears the flag for that version. If Temporal is away (or the process dies
 * first) the flag stays and the relay starts it later: a deploy is never left unevaluated.
 */
export async function startEvaluation(db: Db, deps: EvaluationDeps, s: PendingEvaluation): Promise<void> {
  await deps.starters.startSegmentEvaluation({
    segmentPk: s.pk,
    projectId: s.project_id,
    tenantId: Number(s.tenant_id),
    version: s.version,
    versionUid: s.version_uid,
  });
  await db('segments').where({ pk: s.pk, version: s.version }).update({ evaluation_pending: false });
}

/** Like startEvaluation, for the api: a failed start is left to the relay instead of failing the request. */
export async function startEvaluationOrDefer(db: Db, deps: EvaluationDeps, s: PendingEvaluation): Promise<void> {
  try {
    await startEvaluation(db, deps, s);
  } catch (err) {
    deps.log.warn('segment evaluation start deferred to the relay', {
      segment_pk: s.pk,
      version: s.version,
      err: (err as Error).message,
    });
  }
}

/** Deployed segments whose evaluation is not known to run, a few seconds after the change. */
export async function pendingEvaluations(db: Db, limit: number): Promise<PendingEvaluation[]> {
  return db('segments as s')
    .join('projects as p', 'p.id', 's.project_id')
    .where({ 's.evaluation_pending': true, 's.status': 'deployed' })
    .where('s.updated_at', '<', db.raw(`now() - interval '3 seconds'`))
    .orderBy('s.pk')
    .limit(limit)
    .select('s.pk', 's.project_id', 'p.tenant_id', 's.version', 's.version_uid');
}
