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
  projectsPerTenant: number;
  pipelinesPerProject: number;
  /**
   * Deployed segments of one project, whatever their pipeline: each message is matched against
   * every one of them in its fold, so this bounds the work (memberships, events, outbox rows) one
   * message can cause, which segments per pipeline alone did not.
   */
  deployedSegmentsPerProject: number;
  /** Custom labels of one project: each ready one is scored on every message (docs/labels.md). */
  labelsPerProject: number;
  /** Examples of one label: all are embedded at each training. */
  examplesPerLabel: number;
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
 * A count a tenant may not pass: rows of `table` matching `where`, owned by the `owner` row whose
 * lock serialises the creations that count against it.
 */
export interface CountQuota {
  owner: { table: 'tenants' | 'projects' | 'pipelines'; id: number };
  table: 'projects' | 'pipelines' | 'segments' | 'webhooks' | 'labels';
  where: Record<string, unknown>;
  max: number;
  /** What the refusal names: the field or resource (`segments`, `status`). */
  field: string;
  /** The refusal's sentence: `a pipeline may have at most 100 segments`. */
  limit: string;
  /** How to get a place: `delete one first`, `undeploy one first`. */
  remedy: string;
  setting: string;
}

/**
 * Serialises the creations counted against one owner (its row held FOR NO KEY UPDATE until the
 * caller's transaction ends, which foreign-key checks elsewhere do not wait for) and refuses the one
 * that would go over `max`, so two concurrent creations cannot both take the last place.
 */
export async function holdQuota(trx: Knex.Transaction, quota: CountQuota): Promise<void> {
  await trx.raw(`SELECT 1 FROM ${quota.owner.table} WHERE id = ? FOR NO KEY UPDATE`, [quota.owner.id]);
  await checkQuota(trx, quota);
}

/**
 * The same count without holding the owner: a cheap early refusal before costly work (embedding
 * a rule), so that a tenant at its quota cannot make the api embed for requests that will fail.
 */
export async function checkQuota(db: Knex, quota: CountQuota): Promise<void> {
  const [{ n }] = await db(quota.table).where(quota.where).count({ n: '*' });
  if (Number(n) >= quota.max) {
    throw quotaExceeded(quota.field, `${quota.limit}; ${quota.remedy}, or raise ${quota.setting}`);
  }
}

/** Segments or webhooks of one pipeline (TENANT_SEGMENTS_PER_PIPELINE, TENANT_WEBHOOKS_PER_PIPELINE). */
export function pipelineQuota(what: {
  table: 'segments' | 'webhooks';
  pipelineId: number;
  max: number;
  setting: string;
}): CountQuota {
  return {
    owner: { table: 'pipelines', id: what.pipelineId },
    table: what.table,
    where: { pipeline_id: what.pipelineId },
    max: what.max,
    field: what.table,
    limit: `a pipeline may have at most ${what.max} ${what.table}`,
    remedy: 'delete one first',
    setting: what.setting,
  };
}

/** Projects of one tenant (TENANT_PROJECTS). */
export const projectsQuota = (tenantId: number, max: number): CountQuota => ({
  owner: { table: 'tenants', id: tenantId },
  table: 'projects',
  where: { tenant_id: tenantId },
  max,
  field: 'projects',
  limit: `a tenant may have at most ${max} projects`,
  remedy: 'use an existing one',
  setting: 'TENANT_PROJECTS',
});

/** Pipelines of one project (TENANT_PIPELINES_PER_PROJECT). */
export const pipelinesQuota = (projectId: number, max: number): CountQuota => ({
  owner: { table: 'projects', id: projectId },
  table: 'pipelines',
  where: { project_id: projectId },
  max,
  field: 'pipelines',
  limit: `a project may have at most ${max} pipelines`,
  remedy: 'use an existing one',
  setting: 'TENANT_PIPELINES_PER_PROJECT',
});

/** Deployed segments of one project, all its pipelines together (TENANT_DEPLOYED_SEGMENTS_PER_PROJECT). */
export const deployedSegmentsQuota = (projectId: number, max: number): CountQuota => ({
  owner: { table: 'projects', id: projectId },
  table: 'segments',
  where: { project_id: projectId, status: 'deployed' },
  max,
  field: 'status',
  limit: `a project may have at most ${max} deployed segments (each message is matched against all of them)`,
  remedy: 'undeploy one first',
  setting: 'TENANT_DEPLOYED_SEGMENTS_PER_PROJECT',
});

/** Custom labels of one project (TENANT_LABELS_PER_PROJECT). */
export const labelsQuota = (projectId: number, max: number): CountQuota => ({
  owner: { table: 'projects', id: projectId },
  table: 'labels',
  where: { project_id: projectId },
  max,
  field: 'labels',
  limit: `a project may have at most ${max} labels (each ready one is scored on every message)`,
  remedy: 'delete one first',
  setting: 'TENANT_LABELS_PER_PROJECT',
});
