import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { watchPool } from './pool-health.js';
import { parseRealArray } from './real-array.js';

// Ids are bigserial; they stay far below 2^53, so parse int8 as a number instead of a string.
pg.types.setTypeParser(20, (v) => Number(v));
// NUMERIC is not used for money here; parse as float.
pg.types.setTypeParser(1700, (v) => Number(v));
// real[] (embeddings): a split instead of the character walk, six times faster (real-array.ts).
// 1021 is real[]'s type oid; pg's typings name only the scalar types.
const REAL_ARRAY = 1021 as Parameters<typeof pg.types.setTypeParser>[0];
const genericRealArray = pg.types.getTypeParser(REAL_ARRAY);
pg.types.setTypeParser(REAL_ARRAY, (v: string) => parseRealArray(v, genericRealArray));

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
