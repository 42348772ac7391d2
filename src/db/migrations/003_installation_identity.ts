import type { Knex } from 'knex';

/**
 * Identities that stay unique beyond one database.
 *
 * Workflow ids are business keys (`batch-<source id>`), and those numbers repeat as soon as a
 * second database meets the same Temporal namespace: a re-created or restored database, staging
 * beside production. So:
 * - `installation` holds one random id, written once here, that goes into every workflow id and
 *   the task queue name: two databases never share an id or a queue.
 * - sources, events and segment versions get a random `uid` that goes into the workflow's memo, so
 *   an "already started" answer is accepted only when the existing workflow is provably this
 *   record's (a restored backup keeps the installation id but hands out the same serials again).
 * - a segment remembers that its evaluation has not started yet, like a batch does.
 * - idempotency keys remember a hash of the request they answered, so a reused key with another
 *   body is refused instead of silently dropping the second request.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE installation (
      id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{12}$'),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    -- At most one row.
    CREATE UNIQUE INDEX installation_one_row ON installation ((true));
    INSERT INTO installation (id) VALUES (substr(replace(gen_random_uuid()::text, '-', ''), 1, 12));

    ALTER TABLE sources ADD COLUMN uid uuid NOT NULL DEFAULT gen_random_uuid();
    -- The workflow that processes the batch (set when it is known to run; operators look it up).
    ALTER TABLE sources ADD COLUMN workflow_id text;
    ALTER TABLE events ADD COLUMN uid uuid NOT NULL DEFAULT gen_random_uuid();
    -- Changes with every version bump (deploy, undeploy, rule change): one evaluation per value.
    ALTER TABLE segments ADD COLUMN version_uid uuid NOT NULL DEFAULT gen_random_uuid();
    -- Set with the version bump of a deploy or rule change, cleared once its evaluation workflow is
    -- known to run: the relay starts what a Temporal outage (or a crash) left unstarted.
    ALTER TABLE segments ADD COLUMN evaluation_pending boolean NOT NULL DEFAULT false;
    CREATE INDEX segments_evaluation_pending ON segments (pk) WHERE evaluation_pending;

    -- NULL for keys stored before this migration: those replay as before.
    ALTER TABLE idempotency_keys ADD COLUMN request_hash text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE idempotency_keys DROP COLUMN request_hash;
    ALTER TABLE segments DROP COLUMN evaluation_pending, DROP COLUMN version_uid;
    ALTER TABLE events DROP COLUMN uid;
    ALTER TABLE sources DROP COLUMN workflow_id, DROP COLUMN uid;
    DROP TABLE installation;
  `);
}
