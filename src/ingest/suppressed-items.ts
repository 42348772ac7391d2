import type { Knex } from 'knex';
import type { UserHasher } from '../user-hash.js';

/**
 * The items of `userIds` that are suppressed in the project, by index: a submission leaves them
 * out (identify-users.ts). Read here under the tenant's batch lock, which an erasure that
 * suppresses holds too; privacy/suppressions.ts writes the table.
 */
export async function suppressedItems(
  trx: Knex.Transaction,
  userHash: UserHasher,
  projectId: number,
  userIds: readonly string[],
): Promise<Set<number>> {
  const hashes = userIds.map((id) => userHash(projectId, id));
  const found = new Set<string>(
    await trx('suppressions')
      .where({ project_id: projectId })
      .whereIn('user_hash', [...new Set(hashes)])
      .pluck('user_hash'),
  );
  const out = new Set<number>();
  if (found.size === 0) return out;
  hashes.forEach((h, i) => found.has(h) && out.add(i));
  return out;
}
