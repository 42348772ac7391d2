import { canReach } from '../projects/projects.js';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireId } from '../validation.js';

/** A submitted batch and what became of its items (extension: the 202 names it by `source_id`). */
export interface BatchView {
  source_id: number;
  project_id: number;
  source_label: string;
  /** `waiting` (stored, behind its tenant's running batches), `running` or `completed`. */
  status: 'waiting' | 'running' | 'completed';
  /** Items stored for analysis (the 202's `accepted`). */
  accepted: number;
  /** Items left out at submission because their user id is suppressed. */
  suppressed: number;
  /** Items analysed and folded, and items whose analysis failed: known once completed. */
  processed: number | null;
  failed: number | null;
  /** Items an erasure of their user took while the batch was stored or running. */
  erased: number;
  created_at: Date;
  completed_at: Date | null;
}

export async function getBatch(
  db: Db,
  caller: Caller,
  ref: { projectId: number; sourceId: number },
): Promise<BatchView> {
  const projectId = requireId(ref.projectId, 'project_id');
  const sourceId = requireId(ref.sourceId, 'source_id');
  // Outside the key's projects: answered as a batch that does not exist.
  if (!canReach(caller, projectId)) throw notFound('batch');
  const row = await db('sources as s')
    .join('projects as p', 'p.id', 's.project_id')
    .where({ 's.id': sourceId, 's.project_id': projectId, 'p.tenant_id': caller.tenantId })
    .first(
      's.id',
      's.project_id',
      's.label',
      's.user_count',
      's.suppressed',
      's.processed',
      's.failed',
      's.admitted_at',
      's.created_at',
      's.completed_at',
      db.raw(
        `(SELECT count(*)::int FROM source_items si WHERE si.source_id = s.id AND si.skipped = 'erased') AS erased`,
      ),
    );
  if (!row) throw notFound('batch');
  return {
    source_id: Number(row.id),
    project_id: Number(row.project_id),
    source_label: row.label,
    status: row.completed_at ? 'completed' : row.admitted_at ? 'running' : 'waiting',
    accepted: row.user_count,
    suppressed: row.suppressed ?? 0,
    processed: row.processed,
    failed: row.failed,
    erased: row.erased,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}
