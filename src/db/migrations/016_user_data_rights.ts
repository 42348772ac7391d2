import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';
import { createIndexConcurrently, dropIndexConcurrently } from '../concurrent-index.js';

/**
 * Issue 37 (erasure, suppression, export, retention; docs/privacy.md):
 * - erasures: the audit trail of erasures and retention sweeps: when, by which key (its prefix),
 *   how many rows of each kind; never a text, and the user only as a keyed hash.
 * - suppressions: user ids a later batch skips, stored as a keyed hash (privacy/user-hash.ts).
 * - projects.message_retention_days: after it the sweep erases a message's text and vector and
 *   keeps its analysis; null (the default) keeps texts.
 * - messages.text and .embedding, source_items.text become nullable (erased by retention);
 *   messages.text_erased_at says when. source_items.skipped marks an item an erasure took from a
 *   batch still in flight ('erased': its user id and text are blanked, the row stays so the batch's
 *   chunks keep their indexes).
 * - sources.suppressed: items of a batch that named a suppressed user (not stored).
 * - events.reason ('erased' on the user_removed an erasure emits); events.user_pk no longer
 *   cascades: the user_removed events outlive the user they announce (ON DELETE SET NULL).
 *
 * Catalog changes only (nullable columns without defaults, DROP NOT NULL, a NOT VALID foreign
 * key), each waited for in short tries; the indexes are built CONCURRENTLY. Every step is
 * idempotent, so a run that died half-way runs again from the top.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE IF NOT EXISTS erasures (
      id bigserial PRIMARY KEY,
      -- The public id: unique across databases and deployments.
      uid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('erasure', 'retention')),
      state text NOT NULL CHECK (state IN ('completed')),
      user_hash text,
      suppressed boolean NOT NULL DEFAULT false,
      requested_by text,
      counts jsonb NOT NULL,
      requested_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    );
    CREATE INDEX IF NOT EXISTS erasures_project ON erasures (project_id, id DESC);

    CREATE TABLE IF NOT EXISTS suppressions (
      project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      user_hash text NOT NULL,
      erasure_id bigint REFERENCES erasures(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, user_hash)
    );
  `);
  await withBriefLock(
    knex,
    `ALTER TABLE projects ADD COLUMN IF NOT EXISTS message_retention_days integer
       CHECK (message_retention_days BETWEEN 1 AND 36500)`,
  );
  await withBriefLock(
    knex,
    `ALTER TABLE messages ALTER COLUMN text DROP NOT NULL, ALTER COLUMN embedding DROP NOT NULL,
       ADD COLUMN IF NOT EXISTS text_erased_at timestamptz`,
  );
  await withBriefLock(
    knex,
    `ALTER TABLE source_items ALTER COLUMN text DROP NOT NULL, ADD COLUMN IF NOT EXISTS skipped text`,
  );
  await withBriefLock(knex, 'ALTER TABLE sources ADD COLUMN IF NOT EXISTS suppressed integer');
  await withBriefLock(knex, 'ALTER TABLE events ADD COLUMN IF NOT EXISTS reason text');
  // The new key is NOT VALID: no scan of events under the lock (every row already satisfies it).
  await withBriefLock(
    knex,
    `ALTER TABLE events DROP CONSTRAINT IF EXISTS events_user_pk_fkey,
       DROP CONSTRAINT IF EXISTS events_user_pk_set_null;
     ALTER TABLE events ADD CONSTRAINT events_user_pk_set_null
       FOREIGN KEY (user_pk) REFERENCES users(id) ON DELETE SET NULL NOT VALID`,
  );
  // An erasure finds the items of a user in batches still in flight; the retention sweep finds
  // the texts past their project's retention, oldest first.
  await createIndexConcurrently(knex, 'source_items_user', 'source_items (user_id)');
  await createIndexConcurrently(knex, 'messages_text_age', 'messages (written_at) WHERE text IS NOT NULL');
  await createIndexConcurrently(knex, 'events_by_user', 'events (user_pk) WHERE user_pk IS NOT NULL');
  // The retention sweep's items that failed analysis (their text has no message to go with).
  await createIndexConcurrently(
    knex,
    'source_items_failed',
    'source_items (source_id) WHERE error IS NOT NULL AND text IS NOT NULL',
  );
  // Deleting a user finds all its memberships (memberships_by_user holds the current ones only).
  await createIndexConcurrently(knex, 'memberships_user_all', 'segment_memberships (user_pk)');
}

export async function down(knex: Knex): Promise<void> {
  await dropIndexConcurrently(knex, 'memberships_user_all');
  await dropIndexConcurrently(knex, 'source_items_failed');
  await dropIndexConcurrently(knex, 'events_by_user');
  await dropIndexConcurrently(knex, 'messages_text_age');
  await dropIndexConcurrently(knex, 'source_items_user');
  await knex.raw(`
    ALTER TABLE events DROP CONSTRAINT IF EXISTS events_user_pk_set_null;
    DELETE FROM events WHERE user_pk IS NULL AND event_type <> 'ping';
    ALTER TABLE events ADD CONSTRAINT events_user_pk_fkey FOREIGN KEY (user_pk) REFERENCES users(id) ON DELETE CASCADE;
    ALTER TABLE events DROP COLUMN IF EXISTS reason;
    ALTER TABLE sources DROP COLUMN IF EXISTS suppressed;
    ALTER TABLE source_items DROP COLUMN IF EXISTS skipped;
    ALTER TABLE messages DROP COLUMN IF EXISTS text_erased_at;
    ALTER TABLE projects DROP COLUMN IF EXISTS message_retention_days;
    DROP TABLE IF EXISTS suppressions, erasures;
  `);
}
