import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';

/**
 * Issue 48 (scoped, self-service API keys; docs/api.md "API keys and scopes"):
 * - api_keys gains a public identity (`uid`, unique across databases and deployments), a name, its
 *   scopes, the projects it is limited to (null: all of the tenant's, present and future), an
 *   expiry, the last time it was used (written at most once a minute per key and process, see
 *   auth/last-used.ts) and who created it (`admin`, or the creating key's prefix).
 * - api_key_events: the audit trail of key creations and revocations, with the acting key's prefix.
 *
 * Keys that exist already were the tenant's only keys and opened everything: they get every scope
 * of this migration's list. The column's default is dropped afterwards, so a key made later always
 * says its scopes (a scope added later is granted by the migration that adds it, never by default).
 * Catalog changes only (constant defaults), each waited for in short tries; idempotent.
 */
export const config = { transaction: false };

const SCOPES_AT_020 =
  '{ingest,profiles:read,segments:read,segments:write,webhooks:read,webhooks:write,labels:read,labels:write,privacy,projects,keys}';

export async function up(knex: Knex): Promise<void> {
  await withBriefLock(
    knex,
    `ALTER TABLE api_keys
       ADD COLUMN IF NOT EXISTS uid uuid,
       ADD COLUMN IF NOT EXISTS name text,
       ADD COLUMN IF NOT EXISTS scopes text[] NOT NULL DEFAULT '${SCOPES_AT_020}',
       ADD COLUMN IF NOT EXISTS project_ids bigint[],
       ADD COLUMN IF NOT EXISTS expires_at timestamptz,
       ADD COLUMN IF NOT EXISTS last_used_at timestamptz,
       ADD COLUMN IF NOT EXISTS created_by text`,
  );
  // Few rows (keys, not data): filled in place, then required.
  await knex.raw(`UPDATE api_keys SET uid = gen_random_uuid() WHERE uid IS NULL`);
  await knex.raw(`UPDATE api_keys SET name = 'key ' || prefix WHERE name IS NULL`);
  await withBriefLock(
    knex,
    `ALTER TABLE api_keys
       ALTER COLUMN uid SET DEFAULT gen_random_uuid(),
       ALTER COLUMN uid SET NOT NULL,
       ALTER COLUMN name SET NOT NULL,
       ALTER COLUMN scopes DROP DEFAULT`,
  );
  await knex.raw(`
    CREATE UNIQUE INDEX IF NOT EXISTS api_keys_uid ON api_keys (uid);
    CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant_id, id);
    CREATE TABLE IF NOT EXISTS api_key_events (
      id bigserial PRIMARY KEY,
      uid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      action text NOT NULL CHECK (action IN ('created', 'revoked')),
      key_uid uuid NOT NULL,
      key_prefix text NOT NULL,
      key_name text NOT NULL,
      -- 'admin' (the operator's token) or the acting key's prefix.
      actor text NOT NULL,
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS api_key_events_tenant ON api_key_events (tenant_id, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS api_key_events');
  await knex.raw(`ALTER TABLE api_keys
    DROP COLUMN IF EXISTS uid, DROP COLUMN IF EXISTS name, DROP COLUMN IF EXISTS scopes,
    DROP COLUMN IF EXISTS project_ids, DROP COLUMN IF EXISTS expires_at,
    DROP COLUMN IF EXISTS last_used_at, DROP COLUMN IF EXISTS created_by`);
}
