import type { Knex } from 'knex';
import { quotaExceeded } from './errors.js';

/** What one tenant may create or ask for (docs/fairness.md "Quotas"). */
export interface Quotas {
  webhooksPerPipeline: number;
  segmentsPerPipeline: number;
  semanticConditionsPerSegment: number;
  ruleNodes: number;
  resendsPerMinute: number;
  /** Recovers per webhook in any 60 s (each queues every finally failed event once). */
  recoversPerMinute: number;
  batchesInFlight: number;
  /** Batch workflows of one tenant that run at once; more wait, stored, for a place (not an error). */
  batchesRunning: number;
}

/**
 * The quotas that are not settings: the size of one rule (what the language and an evaluation page
 * are built for) and the rates of the redelivery operations (Svix and Convoy fix theirs too).
 */
export const FIXED_QUOTAS = {
  ruleNodes: 50,
  semanticConditionsPerSegment: 25,
  resendsPerMinute: 30,
  recoversPerMinute: 5,
} satisfies Partial<Quotas>;

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
