import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';
import { createIndexConcurrently } from '../concurrent-index.js';

/**
 * Issue 47 (custom labels; docs/labels.md):
 * - labels: a project's own categories, each taught by its examples. `version` counts the example
 *   sets (every change trains a new version, with a new `version_uid`: one training workflow per
 *   value, even after a database restore); `training_pending` is the relay's flag to start it.
 *   `model`, `quality` and `model_version` are the last version that trained: it keeps scoring
 *   while a newer one trains or if a newer one fails. `backfill_*`: that version scoring the
 *   project's stored messages (the relay starts it when `backfill_pending`), and how far it got.
 * - messages.labels: the labels a message matched when it was analysed (or backfilled).
 *
 * Catalog changes only, each waited for in short tries; idempotent, so a run that died half-way
 * runs again from the top.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS labels (
      id bigserial PRIMARY KEY,
      -- The public identity of the label: unique across databases and deployments.
      uid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      examples jsonb NOT NULL,
      version integer NOT NULL DEFAULT 1,
      version_uid uuid NOT NULL DEFAULT gen_random_uuid(),
      state text NOT NULL DEFAULT 'training' CHECK (state IN ('training', 'ready', 'failed')),
      failure_reason text,
      training_pending boolean NOT NULL DEFAULT true,
      training_started_at timestamptz,
      model jsonb,
      model_version integer,
      quality jsonb,
      trained_at timestamptz,
      -- The backfill of the last version that trained: its stored messages scored, page by page.
      backfill_pending boolean NOT NULL DEFAULT false,
      backfill_version integer,
      backfill_total integer,
      backfill_users integer NOT NULL DEFAULT 0,
      -- The last user scored: a page's progress counts once, however often the page is retried.
      backfill_after bigint NOT NULL DEFAULT 0,
      backfill_started_at timestamptz,
      backfill_done_at timestamptz,
      created_by text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, name)
    );
    CREATE INDEX IF NOT EXISTS labels_training_pending ON labels (id) WHERE training_pending;
    CREATE INDEX IF NOT EXISTS labels_backfill_pending ON labels (id) WHERE backfill_pending;
  `);
  // A constant default: a catalog change, no rewrite of messages.
  await withBriefLock(knex, `ALTER TABLE messages ADD COLUMN IF NOT EXISTS labels text[] NOT NULL DEFAULT '{}'`);
  await createIndexConcurrently(knex, 'labels_ready', 'labels (project_id) WHERE model IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE messages DROP COLUMN IF EXISTS labels');
  await knex.raw('DROP TABLE IF EXISTS labels');
}
