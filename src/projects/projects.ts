import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { requireScope } from '../auth/scopes.js';
import { AppError, invalid, notFound } from '../errors.js';
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

/**
 * Whether the caller's key may reach the project: a key limited to some projects (issue 48) meets
 * every other one exactly as a project that does not exist. Every use case that takes a project
 * checks it through here (or requireProject / requirePipeline) before it reads anything.
 */
export function canReach(caller: Pick<Caller, 'projects'>, projectId: number): boolean {
  return caller.projects === null || caller.projects.includes(Number(projectId));
}

/** Whether the caller's key reaches every project of `projects` (null: all of the tenant's, present and future). */
export function reachesAll(caller: Pick<Caller, 'projects'>, projects: readonly number[] | null): boolean {
  if (caller.projects === null) return true;
  if (projects === null) return false;
  return projects.every((p) => canReach(caller, p));
}

/** 404 for a project the caller's key is not limited to, exactly as for a missing one. */
export function requireReachable(caller: Pick<Caller, 'projects'>, projectId: number): void {
  if (!canReach(caller, projectId)) throw notFound('project');
}

/** A project of another tenant, or outside the key's projects, is answered exactly like a missing one. */
export async function requireProject(db: Db, caller: Caller, projectId: number): Promise<Project> {
  requireReachable(caller, projectId);
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
  if (!canReach(caller, projectId)) throw notFound('pipeline');
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
  // Retention erases texts: a privacy decision, so it needs that scope besides `projects`.
  if (input.message_retention_days !== undefined) requireScope(caller.scopes, 'privacy');
  if (caller.projects !== null) {
    // It could not reach what it made: a project is made by a key of the whole tenant.
    throw new AppError(
      'permission_denied',
      'this API key is limited to some projects; creating a project needs a key for all of them',
      'projects',
    );
  }
  return db.transaction(async (trx) => {
    await holdQuota(trx, projectsQuota(caller.tenantId, quotas.projectsPerTenant));
    const [row] = await trx('projects')
      .insert({ tenant_id: caller.tenantId, name, message_retention_days: retention })
      .returning(PROJECT_COLUMNS);
    return row as Project;
  });
}

export async function listProjects(db: Db, caller: Caller): Promise<Project[]> {
  const q = db('projects').where({ tenant_id: caller.tenantId });
  if (caller.projects !== null) q.whereIn('id', caller.projects);
  return q.orderBy('id').select(PROJECT_COLUMNS);
}

export async function getProject(db: Db, caller: Caller, projectId: number): Promise<Project> {
  return requireProject(db, caller, requireId(projectId, 'project_id'));
}

/** Changes the fields given; an empty update is refused (it would say nothing). */
export async function updateProject(db: Db, caller: Caller, projectId: number, input: ProjectUpdate): Promise<Project> {
  const id = requireId(projectId, 'project_id');
  requireReachable(caller, id);
  const changes: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = requireName(input.name);
  const retention = readRetention(input.message_retention_days);
  if (retention !== undefined) {
    // Retention erases texts: a privacy decision, so it needs that scope besides `projects`.
    requireScope(caller.scopes, 'privacy');
    changes.message_retention_days = retention;
  }
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
