import type { Knex } from 'knex';

/**
 * Issue 14: batch workflows are admitted per tenant (TENANT_BATCHES_RUNNING). `admitted_at` says a
 * batch may run: set in the transaction that stores it when its tenant has a free place, or later
 * by the relay when one of the tenant's running batches completes; every chunk the batch folds
 * stamps it again, so that only a batch without progress for 5 minutes stops counting. Batches not completed when
 * this runs were all started the old way: they count as admitted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE sources ADD COLUMN admitted_at timestamptz;
    UPDATE sources SET admitted_at = coalesce(workflow_started_at, created_at) WHERE completed_at IS NULL;
    CREATE INDEX sources_waiting_admission ON sources (id) WHERE admitted_at IS NULL AND completed_at IS NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX sources_waiting_admission;
    ALTER TABLE sources DROP COLUMN admitted_at;
  `);
}
