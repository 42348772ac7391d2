import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Db } from './knex.js';

/**
 * Runs a statement as a named prepared statement on a pooled connection: PostgreSQL parses and
 * analyses it once per connection instead of on every call. For the hot read statements, whose
 * text depends only on which filters are set (a handful of shapes), so the names stay few.
 * `sql` uses knex's `?` placeholders.
 */
export async function preparedQuery<T = Record<string, unknown>>(
  db: Db,
  sql: string,
  bindings: readonly Knex.Value[],
): Promise<T[]> {
  const native = db
    .raw(sql, bindings as Knex.Value[])
    .toSQL()
    .toNative();
  const name = `q${createHash('sha1').update(native.sql).digest('hex').slice(0, 20)}`;
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    const result = await conn.query({ name, text: native.sql, values: native.bindings as unknown[] });
    return result.rows as T[];
  } finally {
    await db.client.releaseConnection(conn);
  }
}
