import type { Knex } from 'knex';

/**
 * Issue 27 (what the console shows):
 * - segment_memberships: a profile read lists the user's current segments; the primary key and
 *   segment_members lead with the segment, so the user's rows get an index of their own, holding
 *   only current memberships;
 * - webhook_deliveries: the headers an attempt sent, signatures redacted (deliver-attempt.ts).
 *   Null for an attempt that was not sent, and for attempts recorded before this migration.
 * - users: the profile list's `sort=churn_risk` order (profile-counts.ts), covering like users_list,
 *   so a page reads its ids in order from the index instead of sorting the whole project.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX memberships_by_user ON segment_memberships (user_pk) WHERE is_member;
    CREATE INDEX users_churn_page ON users (project_id, churn_risk_score DESC NULLS LAST, user_id)
      INCLUDE (id, updated_at, sentiment_trend, message_count) WHERE aggregates IS NOT NULL;
    ALTER TABLE webhook_deliveries ADD COLUMN request_headers jsonb;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_deliveries DROP COLUMN request_headers;
    DROP INDEX users_churn_page;
    DROP INDEX memberships_by_user;
  `);
}
