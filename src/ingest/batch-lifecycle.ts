import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import { STALE_AFTER } from '../db/stale-after.js';
import type { ValidBatch } from './validate-batch.js';
import { wakeRelay } from '../outbox/outbox.js';

/**
 * A batch's life in the database, and the only writer of its `sources` row: stored with its items
 * before the 202 (storeBatch), admitted per tenant, its workflow started (by the api right after
 * the answer, or by the relay for any batch still unstarted), stamped as its chunks progress, and
 * completed by the workflow's last activity.
 */

/** Starts the batch workflow and answers its id; implemented over the Temporal client. */
export interface BatchStarter {
  startBatch(args: {
    sourceId: number;
    sourceUid: string;
    projectId: number;
    /** Temporal's fairness key: tenants' tasks take turns in the task queue. */
    tenantId: number;
    userCount: number;
  }): Promise<string>;
}

export interface StoredBatch {
  id: number;
  uid: string;
  project_id: number;
  tenant_id: number;
  user_count: number;
}

/**
 * Stores a validated batch and its items (in the caller's transaction, before the 202), admitted
 * at once or left to wait for its tenant's place.
 */
export async function storeBatch(
  trx: Knex.Transaction,
  batch: ValidBatch,
  admitted: boolean,
  /** Items left out because their user is suppressed (privacy/suppressions.ts). */
  suppressed = 0,
): Promise<Omit<StoredBatch, 'tenant_id'>> {
  const [source] = await trx('sources')
    .insert({
      project_id: batch.projectId,
      label: batch.sourceLabel,
      user_count: batch.items.length,
      admitted_at: admitted ? trx.fn.now() : null,
      suppressed: suppressed || null,
    })
    .returning(['id', 'uid', 'project_id', 'user_count']);
  const rows = batch.items.map((item, idx) => ({
    source_id: source.id,
    idx,
    user_id: item.user_id,
    text: item.text,
    attributes: JSON.stringify(item.attributes),
    written_at: item.timestamp,
  }));
  for (let i = 0; i < rows.length; i += 500) await trx('source_items').insert(rows.slice(i, i + 500));
  return { ...source, id: Number(source.id) };
}

// Admission (its bound per tenant comes from src/fairness/admission.ts's relayAdmission):
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

/**
 * Holds the tenant's batch lock until the transaction ends: submissions, admissions and erasures of
 * one tenant (privacy/erase-user.ts) serialise on it.
 */
export async function holdTenantBatchLock(trx: Knex.Transaction, tenantId: number): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(?::int, (?::bigint % 2147483647)::int)', [TENANT_BATCHES_LOCK, tenantId]);
}

/** Holds the tenant's batch lock until the transaction ends, and counts its batches. */
export async function lockTenantBatches(
  trx: Knex.Transaction,
  tenantId: number,
): Promise<{ inFlight: number; running: number }> {
  await holdTenantBatchLock(trx, tenantId);
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

/** Starts a stored batch's workflow and records that it runs (and under which id). */
export async function startStoredBatch(db: Db, starter: BatchStarter, source: StoredBatch): Promise<string> {
  const workflowId = await starter.startBatch({
    sourceId: source.id,
    sourceUid: source.uid,
    projectId: source.project_id,
    tenantId: Number(source.tenant_id),
    userCount: source.user_count,
  });
  await db('sources').where({ id: source.id }).update({ workflow_started_at: db.fn.now(), workflow_id: workflowId });
  return workflowId;
}

/** Admitted batches stored more than a few seconds ago whose workflow is not known to run. */
export async function unstartedBatches(db: Db, limit: number): Promise<StoredBatch[]> {
  // Older than a few seconds: the API normally starts its own batches right after storing them.
  return db('sources as s')
    .join('projects as p', 'p.id', 's.project_id')
    .whereNull('s.workflow_started_at')
    .whereNotNull('s.admitted_at')
    .where('s.created_at', '<', db.raw(`now() - interval '3 seconds'`))
    .orderBy('s.id')
    .limit(limit)
    .select('s.id', 's.uid', 's.project_id', 'p.tenant_id', 's.user_count');
}

/** The batch workflow's last step; it also records the start, in case the starter died before it could. */
export async function completeBatch(
  db: Db,
  input: { sourceId: number; workflowId?: string; processed: number; failed: number },
): Promise<void> {
  await db('sources')
    .where({ id: input.sourceId })
    .update({
      completed_at: db.fn.now(),
      processed: input.processed,
      failed: input.failed,
      workflow_started_at: db.raw('coalesce(workflow_started_at, now())'),
      ...(input.workflowId ? { workflow_id: input.workflowId } : {}),
    });
  // The relay admits the tenant's next waiting batch, if any.
  await wakeRelay(db);
}
