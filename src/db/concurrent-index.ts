import type { Knex } from 'knex';
import type pg from 'pg';

/**
 * Builds an index without blocking writes to its table, for a migration that runs outside a
 * transaction (`export const config = { transaction: false }`): CREATE INDEX CONCURRENTLY cannot
 * run inside one, nor in a query string of several statements (an implicit transaction).
 *
 * Safe to run again after a crash half-way: a concurrent build that failed (process killed,
 * build cancelled) leaves an INVALID index of that name, which IF NOT EXISTS would keep and the
 * planner never uses, so it is dropped (concurrently too) and built again.
 *
 * One connection for the whole build, without the pool's statement_timeout (src/db/knex.ts): on
 * a big table the build outlasts it, and a timeout would only leave an invalid index behind.
 */
export async function createIndexConcurrently(knex: Knex, name: string, definition: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an index name: ${name}`);
  const conn = (await knex.client.acquireConnection()) as pg.Client;
  try {
    const { rows } = await conn.query<{ statement_timeout: string }>('SHOW statement_timeout');
    await conn.query('SET statement_timeout = 0');
    try {
      const invalid = await conn.query('SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid', [
        name,
      ]);
      if (invalid.rows.length > 0) await conn.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      await conn.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
    } finally {
      // Back to the pool as it came. Only a broken connection fails here: the build's own error counts.
      await conn
        .query('SELECT set_config($1, $2, false)', ['statement_timeout', rows[0].statement_timeout])
        .catch(() => undefined);
    }
  } finally {
    await knex.client.releaseConnection(conn);
  }
}

/** The reverse, also without blocking writes; a missing index is fine. */
export async function dropIndexConcurrently(knex: Knex, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an index name: ${name}`);
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
}
