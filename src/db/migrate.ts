import type { Knex } from 'knex';
import * as m001 from './migrations/001_init.js';
import * as m002 from './migrations/002_profile_counts.js';
import * as m003 from './migrations/003_installation_identity.js';
import * as m004 from './migrations/004_analysis_heads.js';
import * as m005 from './migrations/005_fairness_and_quotas.js';
import * as m006 from './migrations/006_delivery_admission.js';
import * as m007 from './migrations/007_webhook_operations.js';
import * as m008 from './migrations/008_evaluation_admission.js';
import * as m009 from './migrations/009_batch_admission.js';
import * as m010 from './migrations/010_redeliveries.js';
import * as m011 from './migrations/011_delivery_slots.js';
import * as m012 from './migrations/012_outbox_awaiting_attempt.js';
import * as m013 from './migrations/013_auth_failures.js';
import * as m014 from './migrations/014_console_reads.js';
import * as m015 from './migrations/015_churn_words.js';
import * as m016 from './migrations/016_user_data_rights.js';
import * as m017 from './migrations/017_secrets_key_ids.js';
import * as m018 from './migrations/018_forget_derived_data.js';
import * as m019 from './migrations/019_custom_labels.js';
import * as m020 from './migrations/020_scoped_api_keys.js';

/**
 * A migration module. knex reads `config.transaction` from what the source's getMigration answers
 * (the module itself): `false` runs that migration outside a transaction (014: CREATE INDEX
 * CONCURRENTLY), and then every migration of the same run gets a transaction of its own instead
 * of one for all.
 */
type MigrationModule = Knex.Migration & { config?: { transaction?: boolean } };

const MIGRATIONS: Record<string, MigrationModule> = {
  '001_init': m001,
  '002_profile_counts': m002,
  '003_installation_identity': m003,
  '004_analysis_heads': m004,
  '005_fairness_and_quotas': m005,
  '006_delivery_admission': m006,
  '007_webhook_operations': m007,
  '008_evaluation_admission': m008,
  '009_batch_admission': m009,
  '010_redeliveries': m010,
  '011_delivery_slots': m011,
  '012_outbox_awaiting_attempt': m012,
  '013_auth_failures': m013,
  '014_console_reads': m014,
  '015_churn_words': m015,
  '016_user_data_rights': m016,
  '017_secrets_key_ids': m017,
  '018_forget_derived_data': m018,
  '019_custom_labels': m019,
  '020_scoped_api_keys': m020,
};

/** Migrations are imported, not discovered on disk, so they work from tsx, bundles and containers. */
const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

const MIGRATION_LOCK = 7_270_001;
/** How often a process waiting for another's migrations asks for the lock again. */
const LOCK_POLL_MS = 200;

/**
 * Several processes (api and worker) may start at once: a session-level advisory lock makes one
 * migrate while the others wait, since knex's own lock table does not exist before the first run.
 *
 * The others ask for the lock again and again instead of waiting in one statement: a waiting
 * statement holds a snapshot, and CREATE INDEX CONCURRENTLY (014) waits for every older snapshot,
 * so the build and the waiter would wait for each other until the statement timeout. Between two
 * asks the waiting session is idle, and it can wait longer than a statement may.
 */
export async function migrateLatest(db: Knex): Promise<string[]> {
  const conn = await db.client.acquireConnection();
  try {
    while (!(await conn.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK])).rows[0].locked) {
      await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
    }
    const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
    return applied;
  } finally {
    await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await db.client.releaseConnection(conn);
  }
}
