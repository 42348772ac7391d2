import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { AppError, invalid, notFound } from '../errors.js';
import { requirePipeline, type PipelineRef } from '../projects/projects.js';
import { checkQuota, deployedSegmentsQuota, holdQuota, pipelineQuota, type Quotas } from '../quotas.js';
import { isStorableText, optionalInt, requireName } from '../validation.js';
import { semanticDescriptions, validateRule } from './rules.js';
import type { Embedder } from '../analysis/embedder.js';
import { embedRuleConditions, storeRuleConditions } from './condition-vectors.js';
import { isValidSlug, slugify } from './slug.js';
// The relay starts segment evaluations, admitted per tenant (evaluation-start.ts); its wake-up
// reaches it when the transaction that set `evaluation_pending` commits.
import { wakeRelay } from '../outbox/outbox.js';
import { requireRuleLabels } from '../labels/label-names.js';

export interface SegmentView {
  id: string;
  pipeline_id: number;
  name: string;
  description: string;
  rule: unknown;
  status: 'draft' | 'deployed';
  created_at: Date;
  updated_at: Date;
}

export type { SegmentEvaluationStarter } from './evaluation-start.js';

export interface CreateSegmentInput {
  /** A slug; made from the name when absent. */
  id?: string | null;
  name: string;
  description?: string | null;
  /** JSON in the rule language; its grammar (and that it is present) is checked by rules.ts. */
  rule?: unknown;
}

/** Absent fields stay as they are. */
export interface UpdateSegmentInput {
  name?: string;
  description?: string | null;
  rule?: unknown;
}

export interface PageInput {
  limit?: number;
  offset?: number;
}

export interface SegmentRef extends PipelineRef {
  segmentId: string;
}

const COLUMNS = [
  'pk',
  'slug',
  'pipeline_id',
  'project_id',
  'name',
  'description',
  'rule',
  'status',
  'version',
  'version_uid',
  'created_at',
  'updated_at',
];

/** Every version bump gets a new identity: one evaluation workflow per value, even after a database restore. */
const bumpVersion = (db: Db) => ({
  version: db.raw('version + 1'),
  version_uid: db.raw('gen_random_uuid()'),
  updated_at: db.fn.now(),
});

function toView(row: Record<string, any>): SegmentView {
  return {
    id: row.slug,
    pipeline_id: row.pipeline_id,
    name: row.name,
    description: row.description,
    rule: row.rule,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function optionalDescription(value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value.length > 2_000 || !isStorableText(value)) {
    throw invalid(
      'description',
      'description must be a string of at most 2000 characters, without NUL or unpaired surrogates',
    );
  }
  return value;
}

async function requireSegment(db: Db, caller: Caller, ref: SegmentRef) {
  await requirePipeline(db, caller, ref);
  // Segment ids are slugs: anything else (NUL, SQL, 10 KB of text) cannot name one.
  if (!isValidSlug(ref.segmentId)) throw notFound('segment');
  const row = await db('segments').where({ pipeline_id: ref.pipelineId, slug: ref.segmentId }).first(COLUMNS);
  if (!row) throw notFound('segment');
  return row;
}

/** The quotas segment writes obey (docs/fairness.md, "Quotas"). */
export type SegmentQuotas = Pick<Quotas, 'segmentsPerPipeline' | 'ruleNodes' | 'semanticConditionsPerSegment'>;

/** What writing a rule needs: its quotas, and the embedder its semantic conditions are stored for. */
export interface RuleDeps {
  quotas: SegmentQuotas;
  embedder: Embedder;
}

const ruleLimits = (q: SegmentQuotas) => ({ maxNodes: q.ruleNodes, maxSemantic: q.semanticConditionsPerSegment });

export async function createSegment(
  db: Db,
  caller: Caller,
  pipeline: PipelineRef,
  input: CreateSegmentInput,
  deps: RuleDeps,
): Promise<SegmentView> {
  const { quotas } = deps;
  const name = requireName(input.name);
  const description = optionalDescription(input.description) ?? '';
  const rule = validateRule(input.rule, ruleLimits(quotas));
  let slug: string;
  if (input.id === undefined || input.id === null) slug = slugify(name);
  else if (isValidSlug(input.id)) slug = input.id;
  else throw invalid('id', 'id must match [a-z0-9_-]{1,64}');
  await requirePipeline(db, caller, pipeline);
  await requireRuleLabels(db, pipeline.projectId, rule);
  const quota = pipelineQuota({
    table: 'segments',
    pipelineId: pipeline.pipelineId,
    max: quotas.segmentsPerPipeline,
    setting: 'TENANT_SEGMENTS_PER_PIPELINE',
  });
  const taken = () => new AppError('already_exists', `segment "${slug}" already exists in this pipeline`, 'id');
  if (semanticDescriptions(rule).length > 0) {
    // Refused before the embedding when full or taken (checked again under the pipeline's lock
    // below): a tenant at its quota cannot make the api embed for requests that fail.
    await checkQuota(db, quota);
    if (await db('segments').where({ pipeline_id: pipeline.pipelineId, slug }).first('pk')) throw taken();
  }
  // Embedded before the transaction (the model may take a moment), stored within it, with the rule.
  const vectors = await embedRuleConditions(db, deps.embedder, rule, { lane: caller.tenantId });
  return db.transaction(async (trx) => {
    const { pipelineId } = pipeline;
    await holdQuota(trx, quota);
    await requireRuleLabels(trx, pipeline.projectId, rule);
    const [row] = await trx('segments')
      .insert({
        pipeline_id: pipelineId,
        project_id: pipeline.projectId,
        slug,
        name,
        description,
        rule: JSON.stringify(rule),
      })
      .onConflict(['pipeline_id', 'slug'])
      .ignore()
      .returning(COLUMNS);
    if (!row) throw taken();
    await storeRuleConditions(trx, deps.embedder.name, row.pk, vectors);
    return toView(row);
  });
}

export async function listSegments(db: Db, caller: Caller, pipeline: PipelineRef): Promise<SegmentView[]> {
  await requirePipeline(db, caller, pipeline);
  const rows = await db('segments').where({ pipeline_id: pipeline.pipelineId }).orderBy('pk').select(COLUMNS);
  return rows.map(toView);
}

export async function getSegment(db: Db, caller: Caller, ref: SegmentRef): Promise<SegmentView> {
  return toView(await requireSegment(db, caller, ref));
}

/**
 * Changing a deployed segment re-evaluates it, firing added/removed for the differences (a name
 * change fires nothing, but its version bump ends an evaluation under way, so a new one resumes it).
 */
export async function updateSegment(
  db: Db,
  caller: Caller,
  ref: SegmentRef,
  input: UpdateSegmentInput,
  deps: RuleDeps,
): Promise<SegmentView> {
  const patch: Record<string, unknown> = {};
  if (input.name !== undefined) patch.name = requireName(input.name);
  if (input.description !== undefined) patch.description = optionalDescription(input.description) ?? '';
  const rule = input.rule === undefined ? undefined : validateRule(input.rule, ruleLimits(deps.quotas));
  if (rule !== undefined) patch.rule = JSON.stringify(rule);
  const current = await requireSegment(db, caller, ref);
  if (rule !== undefined) await requireRuleLabels(db, ref.projectId, rule);
  if (Object.keys(patch).length === 0) return toView(current);
  // Only the descriptions this segment has no vector for yet are embedded (see createSegment).
  const vectors =
    rule === undefined
      ? new Map<string, number[]>()
      : await embedRuleConditions(db, deps.embedder, rule, { segmentPk: current.pk, lane: caller.tenantId });
  const row = await db.transaction(async (trx) => {
    const [updated] = await trx('segments')
      .where({ pk: current.pk })
      .update({ ...patch, ...bumpVersion(trx), evaluation_pending: trx.raw(`status = 'deployed'`) })
      .returning(COLUMNS);
    // Deleted meanwhile: nothing to store the vectors with.
    if (!updated) throw notFound('segment');
    if (rule !== undefined) await requireRuleLabels(trx, ref.projectId, rule);
    await storeRuleConditions(trx, deps.embedder.name, updated.pk, vectors);
    if (updated.status === 'deployed') await wakeRelay(trx);
    return updated;
  });
  return toView(row);
}

export async function deploySegment(
  db: Db,
  caller: Caller,
  ref: SegmentRef,
  quotas: Pick<Quotas, 'deployedSegmentsPerProject'>,
): Promise<SegmentView> {
  const current = await requireSegment(db, caller, ref);
  if (current.status === 'deployed') return toView(current);
  const row = await db.transaction(async (trx) => {
    await holdQuota(trx, deployedSegmentsQuota(ref.projectId, quotas.deployedSegmentsPerProject));
    const [updated] = await trx('segments')
      .where({ pk: current.pk })
      .update({ status: 'deployed', ...bumpVersion(trx), evaluation_pending: true })
      .returning(COLUMNS);
    if (!updated) throw notFound('segment');
    await wakeRelay(trx);
    return updated;
  });
  return toView(row);
}

/** Undeploying fires nothing: memberships are cleared silently, so a later deploy starts afresh. */
export async function undeploySegment(db: Db, caller: Caller, ref: SegmentRef): Promise<SegmentView> {
  const current = await requireSegment(db, caller, ref);
  return db.transaction(async (trx) => {
    const [row] = await trx('segments')
      .where({ pk: current.pk })
      .update({ status: 'draft', ...bumpVersion(trx), evaluation_pending: false, evaluation_progress_at: null })
      .returning(COLUMNS);
    await trx('segment_memberships').where({ segment_pk: current.pk, is_member: true }).update({ is_member: false });
    return toView(row);
  });
}

export async function deleteSegment(db: Db, caller: Caller, ref: SegmentRef): Promise<void> {
  const current = await requireSegment(db, caller, ref);
  await db('segments').where({ pk: current.pk }).delete();
}

export async function listSegmentUsers(
  db: Db,
  caller: Caller,
  ref: SegmentRef,
  q: PageInput,
): Promise<{ users: { user_id: string; score: number; since: Date }[]; total: number }> {
  const limit = optionalInt(q.limit, 'limit', 1, 1_000) ?? 100;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  const segment = await requireSegment(db, caller, ref);
  const base = () => db('segment_memberships as m').where({ 'm.segment_pk': segment.pk, 'm.is_member': true });
  const [rows, [{ count }]] = await Promise.all([
    base()
      .join('users as u', 'u.id', 'm.user_pk')
      .orderBy('m.user_pk')
      .limit(limit)
      .offset(offset)
      .select('u.user_id', 'm.score', 'm.changed_at as since'),
    base().count<{ count: string | number }[]>('* as count'),
  ]);
  return { users: rows, total: Number(count) };
}
