import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { watchPool } from './pool-health.js';

// Ids are bigserial; they stay far below 2^53, so parse int8 as a number instead of a string.
pg.types.setTypeParser(20, (v) => Number(v));
// NUMERIC is not used for money here; parse as float.
pg.types.setTypeParser(1700, (v) => Number(v));

export type Db = Knex;

export function createDb(url: string, poolMax: number): Db {
  const db = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 30_000,
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: poolMax },
    // A request must fail fast (503) when PostgreSQL is away, not hang.
    acquireConnectionTimeout: 5_000,
  });
  watchPool(db);
  return db;
}
