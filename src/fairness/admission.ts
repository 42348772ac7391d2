import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { StoredBatch } from '../users/batch-lifecycle.js';
import type { PendingEvaluation } from '../segments/evaluation-start.js';

/**
 * Admission: how much of one tenant's work may be in Temporal at once. Batches, segment evaluations
 * and deliveries (delivery-admission.ts) each wait in PostgreSQL, where waiting costs nothing, and
 * the relay (src/outbox/relay.ts) starts what this module admits. Each counts what runs by a
 * timestamp that its work stamps as it progresses, so a workflow an operator terminated stops
 * counting after STALE_AFTER instead of blocking its tenant for good.
 */

/** Work that has not stamped progress for this long no longer counts against its tenant. */
export const STALE_AFTER = `interval '5 minutes'`;

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

// Batch workflows are admitted per tenant: at most `TENANT_BATCHES_RUNNING` of a tenant's batches
// run at once; the others wait in PostgreSQL, stored and answered 202, and are admitted oldest
// first as running ones complete. Sixteen one-user batches sent at once were sixteen workflows,
// chunks and folds in the same second, and another tenant's 10-user batch then took 3x its idle
// time; admitted a few at a time, the same work is spread out. `admitted_at` is stamped at
// admission and again by every chunk the batch folds (stampBatchProgress), so a batch of 50,000
// users keeps its place while it runs; one that has made no progress for STALE_AFTER (a
// workflow terminated by an operator) stops counting and cannot block its tenant for good.

/** First key of the two-int advisory lock that serialises one tenant's submissions and admissions. */
const TENANT_BATCHES_LOCK = 7270014;

/** Holds the tenant's batch lock until the transaction ends, and counts its batches. */
export async function lockTenantBatches(
  trx: Knex.Transaction,
  tenantId: number,
): Promise<{ inFlight: number; running: number }> {
  await trx.raw('SELECT pg_advisory_xact_lock(?::int, (?::bigint % 2147483647)::int)', [TENANT_BATCHES_LOCK, tenantId]);
  const { rows } = await trx.raw(
    `SELECT count(*)::int AS in_flight,
            (count(*) FILTER (WHERE s.admitted_at > now() - ${STALE_AFTER}))::int AS running
       FROM sources s JOIN projects p ON p.id = s.project_id
      WHERE p.tenant_id = ? AND s.completed_at IS NULL`,
    [tenantId],
  );
  return { inFlight: rows[0].in_flight, running: rows[0].running };
}

/**
 * Admits waiting batches of tenants with a free place (oldest first), and answers them so that the
 * caller starts their workflows. The relay calls it on every pass; a completed batch wakes it.
 */
export async function admitWaitingBatches(db: Db, perTenant: number, limit: number): Promise<StoredBatch[]> {
  const tenants: { tenant_id: number }[] = await db('sources as s')
    .join('projects as p', 'p.id', 's.project_id')
    .whereNull('s.admitted_at')
    .whereNull('s.completed_at')
    .distinct('p.tenant_id')
    .limit(limit);
  const admitted: StoredBatch[] = [];
  for (const { tenant_id } of tenants) {
    await db.transaction(async (trx) => {
      const { running } = await lockTenantBatches(trx, Number(tenant_id));
      if (running >= perTenant) return;
      const rows: StoredBatch[] = await trx('sources as s')
        .join('projects as p', 'p.id', 's.project_id')
        .where('p.tenant_id', tenant_id)
        .whereNull('s.admitted_at')
        .whereNull('s.completed_at')
        .orderBy('s.id')
        .limit(perTenant - running)
        .select('s.id', 's.uid', 's.project_id', 'p.tenant_id', 's.user_count');
      if (!rows.length) return;
      await trx('sources')
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .update({ admitted_at: trx.fn.now() });
      admitted.push(...rows);
    });
  }
  return admitted;
}

/** A chunk of a running batch was folded: it keeps its admitted place (see STALE_AFTER). */
export async function stampBatchProgress(db: Db, sourceId: number): Promise<void> {
  await db('sources')
    .where({ id: sourceId })
    .whereNotNull('admitted_at')
    .whereNull('completed_at')
    .update({ admitted_at: db.fn.now() });
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
