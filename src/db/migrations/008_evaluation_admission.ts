import type { Knex } from 'knex';

/**
 * Issue 14: segment evaluations are admitted per tenant. The relay starts them (a deploy or a
 * rule change only commits `evaluation_pending`), at most SEGMENT_EVALUATIONS_PER_TENANT at once
 * per tenant; `evaluation_progress_at` says one runs (stamped at its start and by each page,
 * cleared by its last page, an undeploy or a deploy of a new version).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE segments ADD COLUMN evaluation_progress_at timestamptz;
    CREATE INDEX segments_evaluating ON segments (project_id) WHERE evaluation_progress_at IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX segments_evaluating;
    ALTER TABLE segments DROP COLUMN evaluation_progress_at;
  `);
}
