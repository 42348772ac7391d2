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
 * An evaluation that has not stamped progress for this long no longer counts as running (its
 * workflow was terminated by an operator, say): admission never stays blocked by it.
 */
export const STALE_EVALUATION = `interval '5 minutes'`;

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

/**
 * Deployed segments whose evaluation is not known to run, oldest first, admitted per tenant: at
 * most `perTenant` evaluations of one tenant run at once (counting those already running). A
 * tenant deploying 44 segments at once gets them evaluated a few at a time, instead of 44
 * workflows whose pages all compete with the other tenants' analysis at the same moment.
 */
export async function admittedEvaluations(db: Db, limit: number, perTenant: number): Promise<PendingEvaluation[]> {
  const pending: PendingEvaluation[] = await db('segments as s')
    .join('projects as p', 'p.id', 's.project_id')
    .where({ 's.evaluation_pending': true, 's.status': 'deployed' })
    .orderBy('s.pk')
    .limit(limit)
    .select('s.pk', 's.project_id', 'p.tenant_id', 's.version', 's.version_uid');
  if (pending.length === 0) return [];
  const tenants = [...new Set(pending.map((s) => Number(s.tenant_id)))];
  const rows: { tenant_id: string; n: number }[] = await db('segments as s')
    .join('projects as p', 'p.id', 's.project_id')
    .whereIn('p.tenant_id', tenants)
    .where('s.evaluation_progress_at', '>', db.raw(`now() - ${STALE_EVALUATION}`))
    .where('s.evaluation_pending', false)
    .groupBy('p.tenant_id')
    .select('p.tenant_id', db.raw('count(*)::int AS n'));
  const running = new Map(rows.map((r) => [Number(r.tenant_id), r.n]));
  const admitted: PendingEvaluation[] = [];
  for (const s of pending) {
    const t = Number(s.tenant_id);
    const n = running.get(t) ?? 0;
    if (n >= perTenant) continue;
    running.set(t, n + 1);
    admitted.push(s);
  }
  return admitted;
}

/** Records an evaluation's progress (a page done), or its end (`done`), if it is still the current version's. */
export async function stampEvaluation(db: Db, segment: { pk: number; version: number }, done: boolean): Promise<void> {
  await db('segments')
    .where({ pk: segment.pk, version: segment.version })
    .update({ evaluation_progress_at: done ? null : db.fn.now() });
  // The relay may admit the tenant's next evaluation now.
  if (done) await db.raw(`SELECT pg_notify('outbox', '')`);
}
