import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createDb } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { startEmbeddedPostgres } from '../dev-hosting/embedded-postgres.js';
import { createTenant } from '../auth/create-tenant.js';

// `npm run admin -- create-tenant --name NAME` prints {"tenant_id", "api_key"}; the key is shown once.
const { positionals, values } = parseArgs({ allowPositionals: true, options: { name: { type: 'string' } } });
if (positionals[0] !== 'create-tenant' || !values.name) {
  console.error('usage: npm run admin -- create-tenant --name NAME');
  process.exit(2);
}
const config = loadConfig();
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir });
const db = createDb(config.databaseUrl ?? embedded!.url, 3);
try {
  await migrateLatest(db);
  console.log(JSON.stringify(await createTenant(db, { name: values.name })));
} finally {
  await db.destroy();
  await embedded?.stop();
}
