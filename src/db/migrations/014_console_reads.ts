import type { Knex } from 'knex';

/**
 * Issue 27 (what the console shows):
 * - segment_memberships: a profile read lists the user's current segments; the primary key and
 *   segment_members lead with the segment, so the user's rows get an index of their own, holding
 *   only current memberships;
 * - webhook_deliveries: the headers an attempt sent, signatures redacted (deliver-attempt.ts).
 *   Null for an attempt that was not sent, and for attempts recorded before this migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX memberships_by_user ON segment_memberships (user_pk) WHERE is_member;
    ALTER TABLE webhook_deliveries ADD COLUMN request_headers jsonb;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_deliveries DROP COLUMN request_headers;
    DROP INDEX memberships_by_user;
  `);
}
