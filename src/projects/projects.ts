import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { invalid, notFound } from '../errors.js';
import { requireId, requireName } from '../validation.js';
import { holdQuota, pipelinesQuota, projectsQuota, type Quotas } from '../quotas.js';

export interface Project {
  id: number;
  name: string;
  /** Extension: days after which the sweep erases message texts (privacy/retention.ts); null keeps them. */
  message_retention_days: number | null;
  created_at: Date;
}

const PROJECT_COLUMNS = ['id', 'name', 'message_retention_days', 'created_at'];

/** Longest retention accepted: a hundred years (what is kept longer than that is kept for good). */
export const MAX_RETENTION_DAYS = 36_500;

/** `message_retention_days` as given: absent (undefined), off (null) or a whole number of days. */
function readRetention(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RETENTION_DAYS) {
    throw invalid(
      'message_retention_days',
      `message_retention_days must be null (keep texts) or a whole number of days from 1 to ${MAX_RETENTION_DAYS}`,
    );
  }
  return value;
}

export interface Pipeline {
  id: number;
  project_id: number;
  name: string;
  created_at: Date;
}

/** A project of another tenant is answered exactly like a missing one. */
export async function requireProject(db: Db, caller: Caller, projectId: number): Promise<Project> {
  const row = await db('projects').where({ id: projectId, tenant_id: caller.tenantId }).first(PROJECT_COLUMNS);
  if (!row) throw notFound('project');
  return row as Project;
}

/** Where segments and webhooks live: a pipeline, named with its project. */
export interface PipelineRef {
  projectId: number;
  pipelineId: number;
}

export async function requirePipeline(
  db: Db,
  caller: Caller,
  { projectId, pipelineId }: PipelineRef,
): Promise<Pipeline> {
  const row = await db('pipelines as p')
    .join('projects as pr', 'pr.id', 'p.project_id')
    .where({ 'p.id': pipelineId, 'p.project_id': projectId, 'pr.tenant_id': caller.tenantId })
    .first('p.id', 'p.project_id', 'p.name', 'p.created_at');
  if (!row) throw notFound('pipeline');
  return row as Pipeline;
}

/** What a project or a pipeline is created with; the name's rules are checked here. */
export interface NamedInput {
  name: string;
}

/** A project's settings: the name, and (extension) its message retention. */
export interface ProjectInput extends NamedInput {
  message_retention_days?: number | null;
}

/** What PUT /api/v1/projects/{id} changes: the fields given, the others as they are. */
export interface ProjectUpdate {
  name?: string;
  message_retention_days?: number | null;
}

export async function createProject(
  db: Db,
  caller: Caller,
  input: ProjectInput,
  quotas: Pick<Quotas, 'projectsPerTenant'>,
): Promise<Project> {
  const name = requireName(input.name);
  const retention = readRetention(input.message_retention_days) ?? null;
  return db.transaction(async (trx) => {
    await holdQuota(trx, projectsQuota(caller.tenantId, quotas.projectsPerTenant));
    const [row] = await trx('projects')
      .insert({ tenant_id: caller.tenantId, name, message_retention_days: retention })
      .returning(PROJECT_COLUMNS);
    return row as Project;
  });
}

export async function listProjects(db: Db, caller: Caller): Promise<Project[]> {
  return db('projects').where({ tenant_id: caller.tenantId }).orderBy('id').select(PROJECT_COLUMNS);
}

export async function getProject(db: Db, caller: Caller, projectId: number): Promise<Project> {
  return requireProject(db, caller, requireId(projectId, 'project_id'));
}

/** Changes the fields given; an empty update is refused (it would say nothing). */
export async function updateProject(db: Db, caller: Caller, projectId: number, input: ProjectUpdate): Promise<Project> {
  const id = requireId(projectId, 'project_id');
  const changes: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = requireName(input.name);
  const retention = readRetention(input.message_retention_days);
  if (retention !== undefined) changes.message_retention_days = retention;
  if (Object.keys(changes).length === 0) {
    throw invalid('body', 'give name or message_retention_days (null turns retention off)');
  }
  const [row] = await db('projects')
    .where({ id, tenant_id: caller.tenantId })
    .update(changes)
    .returning(PROJECT_COLUMNS);
  if (!row) throw notFound('project');
  return row as Project;
}

export async function createPipeline(
  db: Db,
  caller: Caller,
  projectId: number,
  input: NamedInput,
  quotas: Pick<Quotas, 'pipelinesPerProject'>,
): Promise<Pipeline> {
  const name = requireName(input.name);
  await requireProject(db, caller, requireId(projectId, 'project_id'));
  return db.transaction(async (trx) => {
    await holdQuota(trx, pipelinesQuota(projectId, quotas.pipelinesPerProject));
    const [row] = await trx('pipelines')
      .insert({ project_id: projectId, name })
      .returning(['id', 'project_id', 'name', 'created_at']);
    return row as Pipeline;
  });
}

export async function listPipelines(db: Db, caller: Caller, projectId: number): Promise<Pipeline[]> {
  await requireProject(db, caller, requireId(projectId, 'project_id'));
  return db('pipelines')
    .where({ project_id: projectId })
    .orderBy('id')
    .select('id', 'project_id', 'name', 'created_at');
}
