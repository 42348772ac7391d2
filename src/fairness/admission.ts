import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import { STALE_AFTER } from '../db/stale-after.js';
import type { PendingEvaluation } from '../segments/evaluation-start.js';

/**
 * Admission: how much of one tenant's work may be in Temporal at once. Batches, segment evaluations
 * and deliveries (src/outbox/delivery-admission.ts) each wait in PostgreSQL, where waiting costs nothing, and
 * the relay (src/relay/relay.ts) starts what this module admits. Each counts what runs by a
 * timestamp that its work stamps as it progresses, so a workflow an operator terminated stops
 * counting after STALE_AFTER instead of blocking its tenant for good.
 */

/** Segment evaluations of one tenant that run at once; its other deploys wait their turn. */
export const EVALUATIONS_PER_TENANT = 2;

/** Off (FAIRNESS_OFF): a bound that never binds, kept a number for SQL. */
const UNBOUNDED = 100_000;

/** What the relay admits per tenant, from the configuration (and FAIRNESS_OFF). */
export function relayAdmission(config: Config): RelayAdmission {
  const off = config.fairnessOff;
  return {
    // Twice the in-flight bounds: enough waiting runs that a freed place is taken at once.
    deliveries: off.has('delivery-admission')
      ? { perWebhook: UNBOUNDED, perTenant: UNBOUNDED }
      : { perWebhook: 2 * config.deliveryLimits.perWebhook, perTenant: 2 * config.deliveryLimits.perTenant },
    evaluationsPerTenant: off.has('evaluation-admission') ? UNBOUNDED : EVALUATIONS_PER_TENANT,
    batchesPerTenant: config.quotas.batchesRunning,
  };
}

export interface RelayAdmission {
  /** Delivery runs of one webhook, and of one tenant, that may wait for their first attempt at once. */
  deliveries: { perWebhook: number; perTenant: number };
  evaluationsPerTenant: number;
  batchesPerTenant: number;
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
    .where('s.evaluation_progress_at', '>', db.raw(`now() - ${STALE_AFTER}`))
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
