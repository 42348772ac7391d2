import type { Knex } from 'knex';

/**
 * Issue 25 (several api processes behind a load balancer): failed authentications are counted per
 * client address in one place for every api process, a token bucket per address
 * (auth/failure-limiter.ts). UNLOGGED: a bucket is worth seconds, and losing them all in a
 * crash only forgets who was slowed down.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE UNLOGGED TABLE auth_failures (
      client text PRIMARY KEY,
      tokens double precision NOT NULL,
      at timestamptz NOT NULL
    );
    CREATE INDEX auth_failures_at ON auth_failures (at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE auth_failures');
}
