import { loadConfig } from '../config.js';
import { createDb } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { startEmbeddedPostgres } from '../dev-hosting/embedded-postgres.js';

// `npm run migrate`: migrates DATABASE_URL, or the embedded PostgreSQL in the data folder.
const config = loadConfig();
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir });
const db = createDb(config.databaseUrl ?? embedded!.url, 3);
try {
  const applied = await migrateLatest(db);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'already up to date');
} finally {
  await db.destroy();
  await embedded?.stop();
}
