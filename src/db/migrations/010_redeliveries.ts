import type { Knex } from 'knex';

/**
 * Issue 23 (webhook operations under abuse): every delivery run is an outbox row.
 * - `kind`: `event` (the first delivery of an event, one per event and webhook, as before),
 *   `resend` (one delivery re-sent by request) or `recovery` (re-sent by a recover). A recovery
 *   waits in the outbox like any event and goes through the relay's admission.
 * - `resend_of` and `token` name what a resend or recovery re-sends and make its workflow id.
 * - `workflow_id`: the run's workflow, written when it is started. Its delivery rows carry it in
 *   `attempt_key` (`<workflow id>:<attempt>`), so a run is known to be under way until one of them
 *   is a success or final: that is how recover never starts an event twice.
 * - `webhook_resends.kind`: the sliding windows of QUOTA_RESENDS_PER_MINUTE and
 *   QUOTA_RECOVERS_PER_MINUTE share the table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE outbox
      ADD COLUMN kind text NOT NULL DEFAULT 'event' CHECK (kind IN ('event', 'resend', 'recovery')),
      ADD COLUMN resend_of bigint,
      ADD COLUMN token uuid,
      ADD COLUMN workflow_id text;
    ALTER TABLE outbox ADD CONSTRAINT outbox_redelivery_names_its_delivery
      CHECK ((kind = 'event') = (resend_of IS NULL AND token IS NULL));
    ALTER TABLE outbox DROP CONSTRAINT outbox_event_id_webhook_id_key;
    CREATE UNIQUE INDEX outbox_event_once ON outbox (event_id, webhook_id) WHERE kind = 'event';
    CREATE INDEX outbox_runs_of_event ON outbox (webhook_id, event_id);
    -- Runs started in the last week (older ones are over, see webhooks/redeliver.ts): the id they
    -- were started under (the relay's form). A row started under a record-specific id after an id
    -- clash reads as ended, as a row without an id does.
    UPDATE outbox
       SET workflow_id = 'delivery-' || (SELECT id FROM installation) || '-' || event_id || '-' || webhook_id
     WHERE dispatched_at > now() - interval '7 days';
    -- Expired Idempotency-Key answers are deleted by the worker's sweep (a rotation's answer holds
    -- a sealed secret: it must not outlive its 24 h).
    CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
    -- A webhook's delete removes its test events (manage-webhooks.ts).
    CREATE INDEX events_pings ON events (pipeline_id) WHERE event_type = 'ping';

    ALTER TABLE webhook_resends
      ADD COLUMN kind text NOT NULL DEFAULT 'resend' CHECK (kind IN ('resend', 'recover'));
    DROP INDEX webhook_resends_window;
    CREATE INDEX webhook_resends_window ON webhook_resends (webhook_id, kind, at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX events_pings;
    DROP INDEX idempotency_keys_created;
    DROP INDEX webhook_resends_window;
    DELETE FROM webhook_resends WHERE kind <> 'resend';
    ALTER TABLE webhook_resends DROP COLUMN kind;
    CREATE INDEX webhook_resends_window ON webhook_resends (webhook_id, at);

    DELETE FROM outbox WHERE kind <> 'event';
    DROP INDEX outbox_runs_of_event;
    DROP INDEX outbox_event_once;
    ALTER TABLE outbox ADD CONSTRAINT outbox_event_id_webhook_id_key UNIQUE (event_id, webhook_id);
    ALTER TABLE outbox DROP CONSTRAINT outbox_redelivery_names_its_delivery;
    ALTER TABLE outbox DROP COLUMN workflow_id, DROP COLUMN token, DROP COLUMN resend_of, DROP COLUMN kind;
  `);
}
