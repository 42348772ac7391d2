import type { Knex } from 'knex';
import { quotaExceeded } from './errors.js';

export type { Quotas } from './config.js';

/**
 * Serialises creations in one pipeline (its row held FOR NO KEY UPDATE until the caller's
 * transaction ends, which foreign-key checks elsewhere do not wait for) and refuses the one that
 * would go over `max`, so two concurrent creations cannot both take the last place.
 */
export async function holdPipelineQuota(trx: Knex.Transaction, what: PipelineQuota): Promise<void> {
  await trx.raw('SELECT 1 FROM pipelines WHERE id = ? FOR NO KEY UPDATE', [what.pipelineId]);
  await checkPipelineQuota(trx, what);
}

type PipelineQuota = { table: 'segments' | 'webhooks'; pipelineId: number; max: number; setting: string };

/**
 * The same count without holding the pipeline: a cheap early refusal before costly work (embedding
 * a rule), so that a tenant at its quota cannot make the api embed for requests that will fail.
 */
export async function checkPipelineQuota(db: Knex, what: PipelineQuota): Promise<void> {
  const [{ n }] = await db(what.table).where({ pipeline_id: what.pipelineId }).count({ n: '*' });
  if (Number(n) >= what.max) {
    throw quotaExceeded(
      what.table,
      `a pipeline may have at most ${what.max} ${what.table}; delete one first, or raise ${what.setting}`,
    );
  }
}
