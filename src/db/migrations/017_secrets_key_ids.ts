import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';
import { createIndexConcurrently, dropIndexConcurrently } from '../concurrent-index.js';

/**
 * Issue 44, finding 5 (a new SECRETS_KEY silently voided every suppression; docs/operations.md,
 * "Rotating SECRETS_KEY"):
 * - suppressions.key_id, erasures.key_id: which SECRETS_KEY made the row's user hash (its public
 *   id, src/secrets-key.ts), so an operator sees which rows still need an earlier key. Null for
 *   rows made before this migration: the key is not in them and cannot be found from them.
 * - installation.secrets_key_id: the key the installation's processes make data with; a process
 *   whose keys cannot read what that key made does not start (src/secrets-key-agreement.ts).
 * - suppressions_key_id: a starting process finds the keys its suppressions were made with in a
 *   few index probes (one per key), whatever the table's size.
 *
 * Nullable columns without defaults (catalog changes, each waited for in short tries) and an index
 * built CONCURRENTLY; every step is idempotent.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await withBriefLock(knex, 'ALTER TABLE suppressions ADD COLUMN IF NOT EXISTS key_id text');
  await withBriefLock(knex, 'ALTER TABLE erasures ADD COLUMN IF NOT EXISTS key_id text');
  await withBriefLock(knex, 'ALTER TABLE installation ADD COLUMN IF NOT EXISTS secrets_key_id text');
  await createIndexConcurrently(knex, 'suppressions_key_id', 'suppressions (key_id) WHERE key_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexConcurrently(knex, 'suppressions_key_id');
  await knex.raw(`
    ALTER TABLE installation DROP COLUMN IF EXISTS secrets_key_id;
    ALTER TABLE erasures DROP COLUMN IF EXISTS key_id;
    ALTER TABLE suppressions DROP COLUMN IF EXISTS key_id;
  `);
}
