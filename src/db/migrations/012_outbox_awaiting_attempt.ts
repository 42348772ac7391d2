import type { Knex } from 'knex';

/**
 * Issue 25 (delivery capacity): the relay's admission counted "started, first attempt not yet
 * recorded" by probing webhook_deliveries for every row dispatched in the last 5 minutes (tens of
 * thousands at 100 deliveries/s, on every pass). The row now says it: `awaiting_attempt` is set when
 * the relay starts the run and cleared by its first attempt, and a partial index holds only those
 * rows. Rows dispatched before this migration read as attempted (a run in flight during the upgrade
 * is not counted, once). The undispatched rows are read per webhook, in the relay's order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE outbox ADD COLUMN awaiting_attempt boolean NOT NULL DEFAULT false;
    CREATE INDEX outbox_awaiting ON outbox (dispatched_at) WHERE awaiting_attempt;
    CREATE INDEX outbox_pending_by_webhook ON outbox (webhook_id, (kind = 'recovery'), id) WHERE dispatched_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX outbox_pending_by_webhook;
    DROP INDEX outbox_awaiting;
    ALTER TABLE outbox DROP COLUMN awaiting_attempt;
  `);
}
