import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDb } from '../src/db/knex.js';
import { migrateLatest } from '../src/db/migrate.js';
import { startTestDatabase } from './support/test-database.js';

/**
 * The integration tier's stack: PostgreSQL only (DATABASE_URL's server with a fresh database, or
 * the embedded one), migrated as the service would migrate it. No Temporal, no service processes.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'profiling-db-test-'));
  // The embedded PostgreSQL runs as the postgres user when we are root: it must reach its folder.
  chmodSync(dir, 0o755);
  const database = await startTestDatabase(path.join(dir, 'pg'));
  const db = createDb(database.url, 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  project.provide('databaseUrl', database.url);
  return async () => {
    await database.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
}
