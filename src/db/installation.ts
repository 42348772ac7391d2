import type { Db } from './knex.js';

/**
 * The random id this database was given by migration 003. It is part of every workflow id and of
 * the task queue, so a second database on the same Temporal namespace (re-created, restored,
 * staging beside production) never meets this one's workflows.
 */
export async function readInstallationId(db: Db): Promise<string> {
  const row = await db('installation').first('id');
  if (!row) throw new Error('the installation table is empty: run the migrations (npm run migrate)');
  return row.id as string;
}
