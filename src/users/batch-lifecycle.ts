import type { Db } from '../db/knex.js';

/**
 * A batch's life in the database: stored with its items before the 202 (identify-users.ts), its
 * workflow started (here, by the api right after the answer, or by the relay for any batch still
 * unstarted), completed by the workflow's last activity (here).
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
  await db.raw(`SELECT pg_notify('outbox', '')`);
}
