import type { Knex } from 'knex';
import * as m001 from './migrations/001_init.js';

const MIGRATIONS: Record<string, Knex.Migration> = {
  '001_init': m001,
};

/** Migrations are imported, not discovered on disk, so they work from tsx, bundles and containers. */
const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name],
};

export async function migrateLatest(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
  return applied;
}
