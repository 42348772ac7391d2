import type { Knex } from 'knex';

/**
 * The relay admits a tenant's delivery workflows only while few of them wait for their first
 * attempt (src/relay/relay.ts): it counts recently dispatched outbox rows that have no delivery
 * row yet, which these two indexes answer without scanning either table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX outbox_dispatched ON outbox (dispatched_at) WHERE dispatched_at IS NOT NULL;
    CREATE INDEX deliveries_event_webhook ON webhook_deliveries (event_id, webhook_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX deliveries_event_webhook;
    DROP INDEX outbox_dispatched;
  `);
}
