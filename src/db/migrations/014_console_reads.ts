import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';
import { createIndexConcurrently, dropIndexConcurrently } from '../concurrent-index.js';

/**
 * Issue 27 (what the console shows):
 * - segment_memberships: a profile read lists the user's current segments; the primary key and
 *   segment_members lead with the segment, so the user's rows get an index of their own, holding
 *   only current memberships;
 * - webhook_deliveries: the headers an attempt sent, signatures redacted, and after a failed
 *   attempt with a next one, when its workflow retries (deliver-attempt.ts). Null for an attempt
 *   that was not sent (and after a success or a final attempt), and for attempts recorded before
 *   this migration.
 * - users: the profile list's `sort=churn_risk` order (profile-counts.ts), covering like users_list,
 *   so a page reads its ids in order from the index instead of sorting the whole project.
 *
 * The indexes are built CONCURRENTLY, so writes to segment_memberships and users go on while they
 * build on big tables. That cannot run in a transaction: knex runs this migration outside one
 * (`config`, honoured with our migration source, src/db/migrate.ts). Every step is idempotent, so
 * a run that died half-way is run again from the top at the next start.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  // Nullable columns without a default are a catalog change: instant whatever the table's size.
  // Its lock is waited for in short tries, so deliveries are not queued behind a long transaction.
  await withBriefLock(
    knex,
    `ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS request_headers jsonb,
       ADD COLUMN IF NOT EXISTS next_attempt_at timestamptz`,
  );
  await createIndexConcurrently(knex, 'memberships_by_user', 'segment_memberships (user_pk) WHERE is_member');
  await createIndexConcurrently(
    knex,
    'users_churn_page',
    `users (project_id, churn_risk_score DESC NULLS LAST, user_id)
       INCLUDE (id, updated_at, sentiment_trend, message_count) WHERE aggregates IS NOT NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexConcurrently(knex, 'users_churn_page');
  await dropIndexConcurrently(knex, 'memberships_by_user');
  await knex.raw(
    'ALTER TABLE webhook_deliveries DROP COLUMN IF EXISTS request_headers, DROP COLUMN IF EXISTS next_attempt_at',
  );
}
