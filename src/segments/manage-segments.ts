import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { AppError, invalid, notFound } from '../errors.js';
import { requirePipeline, type PipelineRef } from '../projects/projects.js';
import { holdPipelineQuota, type Quotas } from '../quotas.js';
import { isStorableText, optionalInt, requireName } from '../validation.js';
import { validateRule } from './rules.js';
import { isValidSlug, slugify } from './slug.js';
import { startEvaluationOrDefer, type EvaluationDeps } from './evaluation-start.js';

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

/** The quotas segment writes obey (see README "Quotas"). */
export type SegmentQuotas = Pick<Quotas, 'segmentsPerPipeline' | 'ruleNodes' | 'semanticConditionsPerSegment'>;

const ruleLimits = (q: SegmentQuotas) => ({ maxNodes: q.ruleNodes, maxSemantic: q.semanticConditionsPerSegment });

export async function createSegment(
  db: Db,
  caller: Caller,
  pipeline: PipelineRef,
  input: CreateSegmentInput,
  quotas: SegmentQuotas,
): Promise<SegmentView> {
  const name = requireName(input.name);
  const description = optionalDescription(input.description) ?? '';
  const rule = validateRule(input.rule, ruleLimits(quotas));
  let slug: string;
  if (input.id === undefined || input.id === null) slug = slugify(name);
  else if (isValidSlug(input.id)) slug = input.id;
  else throw invalid('id', 'id must match [a-z0-9_-]{1,64}');
  await requirePipeline(db, caller, pipeline);
  return db.transaction(async (trx) => {
    const { pipelineId } = pipeline;
    await holdPipelineQuota(trx, {
      table: 'segments',
      pipelineId,
      max: quotas.segmentsPerPipeline,
      setting: 'QUOTA_SEGMENTS_PER_PIPELINE',
    });
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
    if (!row) throw new AppError('already_exists', `segment "${slug}" already exists in this pipeline`, 'id');
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
  evaluations: EvaluationDeps,
  caller: Caller,
  ref: SegmentRef,
  input: UpdateSegmentInput,
  quotas: SegmentQuotas,
): Promise<SegmentView> {
  const patch: Record<string, unknown> = {};
  if (input.name !== undefined) patch.name = requireName(input.name);
  if (input.description !== undefined) patch.description = optionalDescription(input.description) ?? '';
  if (input.rule !== undefined) patch.rule = JSON.stringify(validateRule(input.rule, ruleLimits(quotas)));
  const current = await requireSegment(db, caller, ref);
  if (Object.keys(patch).length === 0) return toView(current);
  const [row] = await db('segments')
    .where({ pk: current.pk })
    .update({ ...patch, ...bumpVersion(db), evaluation_pending: db.raw(`status = 'deployed'`) })
    .returning(COLUMNS);
  if (row.status === 'deployed') await startEvaluationOrDefer(db, evaluations, { ...row, tenant_id: caller.tenantId });
  return toView(row);
}

export async function deploySegment(
  db: Db,
  evaluations: EvaluationDeps,
  caller: Caller,
  ref: SegmentRef,
): Promise<SegmentView> {
  const current = await requireSegment(db, caller, ref);
  if (current.status === 'deployed') return toView(current);
  const [row] = await db('segments')
    .where({ pk: current.pk })
    .update({ status: 'deployed', ...bumpVersion(db), evaluation_pending: true })
    .returning(COLUMNS);
  await startEvaluationOrDefer(db, evaluations, { ...row, tenant_id: caller.tenantId });
  return toView(row);
}

/** Undeploying fires nothing: memberships are cleared silently, so a later deploy starts afresh. */
export async function undeploySegment(db: Db, caller: Caller, ref: SegmentRef): Promise<SegmentView> {
  const current = await requireSegment(db, caller, ref);
  return db.transaction(async (trx) => {
    const [row] = await trx('segments')
      .where({ pk: current.pk })
      .update({ status: 'draft', ...bumpVersion(trx), evaluation_pending: false })
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
