import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireProject } from '../projects/projects.js';
import { optionalInt, requireId } from '../validation.js';
import { requireUserId } from '../ingest/validate-batch.js';
import type { UserHasher } from '../user-hash.js';

/**
 * Suppressed user ids of a project, kept as keyed hashes (src/user-hash.ts): an erasure asks for
 * one (erase-user.ts), a later batch skips the items that name one (ingest/suppressed-items.ts,
 * under the tenant's batch lock, so no batch slips past an erasure that suppresses), and the
 * customer lifts it here. This folder writes the table; ingest only reads it.
 */
export interface SuppressionView {
  user_id_hash: string;
  created_at: Date;
  /** The erasure that asked for it (its public id). */
  erasure_id: string | null;
}

export async function listSuppressions(
  db: Db,
  caller: Caller,
  q: { projectId: number; limit?: number; offset?: number },
): Promise<{ suppressions: SuppressionView[] }> {
  const projectId = requireId(q.projectId, 'project_id');
  const limit = optionalInt(q.limit, 'limit', 1, 1000) ?? 100;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  await requireProject(db, caller, projectId);
  const rows = await db('suppressions as s')
    .leftJoin('erasures as e', 'e.id', 's.erasure_id')
    .where({ 's.project_id': projectId })
    .orderBy([
      { column: 's.created_at', order: 'desc' },
      { column: 's.user_hash', order: 'asc' },
    ])
    .limit(limit)
    .offset(offset)
    .select('s.user_hash', 's.created_at', 'e.uid');
  return {
    suppressions: rows.map((r) => ({ user_id_hash: r.user_hash, created_at: r.created_at, erasure_id: r.uid ?? null })),
  };
}

/** Lifts a user's suppression; 404 when the id is not suppressed in the project. */
export async function liftSuppression(
  deps: { db: Db; userHash: UserHasher },
  caller: Caller,
  ref: { projectId: number; userId: string },
): Promise<void> {
  const projectId = requireId(ref.projectId, 'project_id');
  const userId = requireUserId(ref.userId, 'user_id');
  await requireProject(deps.db, caller, projectId);
  const n = await deps
    .db('suppressions')
    .where({ project_id: projectId, user_hash: deps.userHash(projectId, userId) })
    .delete();
  if (n === 0) throw notFound('suppression');
}
