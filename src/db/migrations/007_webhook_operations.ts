import type { Knex } from 'knex';

/**
 * Issue 15 (webhooks that operators trust):
 * - webhooks: why a webhook was switched off (410 Gone, or every delivery failing for
 *   5 days), since when its deliveries have all failed, the previous secret of a
 *   rotation and when it stops signing, and an optional list of segment ids it is limited to;
 * - webhook_deliveries: whether the attempt was its delivery's last (recover re-sends those), and
 *   the receiver's Retry-After when it asked for one;
 * - events: `ping`, the test event, which has no user or segment.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhooks
      ADD COLUMN disabled_reason text,
      ADD COLUMN failing_since timestamptz,
      ADD COLUMN previous_secret_sealed text,
      ADD COLUMN previous_secret_expires_at timestamptz,
      ADD COLUMN segments text[];
    CREATE INDEX webhooks_previous_secret ON webhooks (previous_secret_expires_at)
      WHERE previous_secret_expires_at IS NOT NULL;

    ALTER TABLE webhook_deliveries
      ADD COLUMN final boolean NOT NULL DEFAULT false,
      ADD COLUMN retry_after_ms integer;
    CREATE INDEX deliveries_final_failures ON webhook_deliveries (webhook_id, created_at) WHERE final;

    ALTER TABLE events ALTER COLUMN user_pk DROP NOT NULL;
    ALTER TABLE events DROP CONSTRAINT events_event_type_check;
    ALTER TABLE events ADD CONSTRAINT events_event_type_check
      CHECK (event_type IN ('user_added', 'user_removed', 'ping'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM events WHERE event_type = 'ping';
    ALTER TABLE events DROP CONSTRAINT events_event_type_check;
    ALTER TABLE events ADD CONSTRAINT events_event_type_check CHECK (event_type IN ('user_added', 'user_removed'));
    ALTER TABLE events ALTER COLUMN user_pk SET NOT NULL;
    DROP INDEX deliveries_final_failures;
    ALTER TABLE webhook_deliveries DROP COLUMN retry_after_ms, DROP COLUMN final;
    DROP INDEX webhooks_previous_secret;
    ALTER TABLE webhooks DROP COLUMN segments, DROP COLUMN previous_secret_expires_at,
      DROP COLUMN previous_secret_sealed, DROP COLUMN failing_since, DROP COLUMN disabled_reason;
  `);
}
