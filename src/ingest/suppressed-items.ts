import type { Knex } from 'knex';
import { moveSuppressionsToCurrentKey } from '../privacy/suppressions.js';
import type { UserHasher } from '../user-hash.js';

/**
 * The items of `userIds` that are suppressed in the project, by index: a submission leaves them
 * out (identify-users.ts). Read here under the tenant's batch lock, which an erasure that
 * suppresses holds too; privacy/suppressions.ts writes the table.
 *
 * Each id is matched under the current key and every previous one (SECRETS_KEY_PREVIOUS): one
 * lookup on the primary key for all of them. A suppression found under a previous key is moved to
 * the current key's hash here, the one moment the id is known again, so the old key is needed
 * only for the ids never seen since (docs/operations.md, "Rotating SECRETS_KEY").
 */
export async function suppressedItems(
  trx: Knex.Transaction,
  userHash: UserHasher,
  projectId: number,
  userIds: readonly string[],
): Promise<Set<number>> {
  const userOf = new Map<string, string>();
  for (const id of new Set(userIds)) for (const h of userHash.all(projectId, id)) userOf.set(h.hash, id);
  const found: string[] = await trx('suppressions')
    .where({ project_id: projectId })
    .whereIn('user_hash', [...userOf.keys()])
    .pluck('user_hash');
  const out = new Set<number>();
  if (found.length === 0) return out;
  const suppressed = new Set(found.map((h) => userOf.get(h)!));
  userIds.forEach((id, i) => suppressed.has(id) && out.add(i));
  const stale = found.filter((h) => h !== userHash.current(projectId, userOf.get(h)!).hash);
  if (stale.length > 0) {
    await moveSuppressionsToCurrentKey(
      trx,
      projectId,
      stale.map((h) => ({ staleHashes: [h], current: userHash.current(projectId, userOf.get(h)!) })),
    );
  }
  return out;
}
