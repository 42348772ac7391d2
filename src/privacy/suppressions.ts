import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireProject } from '../projects/projects.js';
import { optionalInt, requireId } from '../validation.js';
import { requireStoredUserId } from '../ingest/validate-batch.js';
import type { UserHash, UserHasher } from '../user-hash.js';

/**
 * Suppressed user ids of a project, kept as keyed hashes (src/user-hash.ts): an erasure asks for
 * one (erase-user.ts), a later batch skips the items that name one (ingest/suppressed-items.ts,
 * under the tenant's batch lock, so no batch slips past an erasure that suppresses), and the
 * customer lifts it here. This folder writes the table (ingest moves a row to the current key
 * through moveSuppressionsToCurrentKey). Each row says which SECRETS_KEY made its hash (key_id);
 * lookups match under the current key and every previous one (user-hash.ts).
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

/** Lifts a user's suppression, made under any configured key; 404 when the id is not suppressed in the project. */
export async function liftSuppression(
  deps: { db: Db; userHash: UserHasher },
  caller: Caller,
  ref: { projectId: number; userId: string },
): Promise<void> {
  const projectId = requireId(ref.projectId, 'project_id');
  const userId = requireStoredUserId(ref.userId, 'user_id');
  await requireProject(deps.db, caller, projectId);
  const n = await deps
    .db('suppressions')
    .where({ project_id: projectId })
    .whereIn(
      'user_hash',
      deps.userHash.all(projectId, userId).map((h) => h.hash),
    )
    .delete();
  if (n === 0) throw notFound('suppression');
}

/**
 * Replaces suppressions made under a previous key by the same suppression under the current key
 * (its date and erasure kept): called where the user id is known again (a batch naming it, an
 * erasure), so the previous key can be retired once no row carries its key_id.
 */
export async function moveSuppressionsToCurrentKey(
  trx: Knex.Transaction,
  projectId: number,
  moves: readonly { staleHashes: readonly string[]; current: UserHash }[],
): Promise<void> {
  for (const { staleHashes, current } of moves) {
    if (staleHashes.length === 0) continue;
    const gone: { erasure_id: number | null; created_at: Date }[] = await trx('suppressions')
      .where({ project_id: projectId })
      .whereIn('user_hash', staleHashes)
      .delete()
      .returning(['erasure_id', 'created_at']);
    if (gone.length === 0) continue;
    await trx('suppressions')
      .insert({
        project_id: projectId,
        user_hash: current.hash,
        key_id: current.keyId,
        erasure_id: gone[0].erasure_id,
        created_at: gone[0].created_at,
      })
      .onConflict(['project_id', 'user_hash'])
      .ignore();
  }
}
