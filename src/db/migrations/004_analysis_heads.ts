import type { Knex } from 'knex';

/**
 * Trained analysis heads, one row per embedder and training corpus (see src/analysis/heads-store.ts):
 * every worker of an installation uses the same heads, trained once. `checksum` is the sha256 of
 * `heads` as stored, so a row damaged by hand or by a bad restore is noticed and trained again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE analysis_heads (
      cache_key text PRIMARY KEY,
      embedder text NOT NULL,
      corpus_hash text NOT NULL,
      version integer NOT NULL,
      heads text NOT NULL,
      checksum text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE analysis_heads');
}
