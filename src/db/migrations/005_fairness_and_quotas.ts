import type { Knex } from 'knex';

/**
 * Issue 14 (tenants cannot starve each other):
 * - `segment_condition_vectors`: the embedding of each semantic description of a segment's rule,
 *   per embedder, computed once when the segment is evaluated after a deploy or a rule change, so
 *   folding a message never embeds rule text (see src/segments/condition-vectors.ts);
 * - `webhook_resends`: the sliding window of QUOTA_RESENDS_PER_MINUTE, shared by every api process;
 * - an index over the batches still in flight, which QUOTA_BATCHES_IN_FLIGHT counts per tenant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE segment_condition_vectors (
      segment_pk bigint NOT NULL REFERENCES segments(pk) ON DELETE CASCADE,
      embedder text NOT NULL,
      description text NOT NULL,
      vector real[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (segment_pk, embedder, description)
    );
    CREATE TABLE webhook_resends (
      webhook_id bigint NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_resends_window ON webhook_resends (webhook_id, at);
    CREATE INDEX sources_in_flight ON sources (project_id) WHERE completed_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX sources_in_flight;
    DROP TABLE webhook_resends;
    DROP TABLE segment_condition_vectors;
  `);
}
