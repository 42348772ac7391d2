import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireId, requireName } from '../validation.js';
import { holdQuota, pipelinesQuota, projectsQuota, type Quotas } from '../quotas.js';

export interface Project {
  id: number;
  name: string;
  created_at: Date;
}

export interface Pipeline {
  id: number;
  project_id: number;
  name: string;
  created_at: Date;
}

/** A project of another tenant is answered exactly like a missing one. */
export async function requireProject(db: Db, caller: Caller, projectId: number): Promise<Project> {
  const row = await db('projects')
    .where({ id: projectId, tenant_id: caller.tenantId })
    .first('id', 'name', 'created_at');
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

export async function createProject(
  db: Db,
  caller: Caller,
  input: NamedInput,
  quotas: Pick<Quotas, 'projectsPerTenant'>,
): Promise<Project> {
  const name = requireName(input.name);
  return db.transaction(async (trx) => {
    await holdQuota(trx, projectsQuota(caller.tenantId, quotas.projectsPerTenant));
    const [row] = await trx('projects')
      .insert({ tenant_id: caller.tenantId, name })
      .returning(['id', 'name', 'created_at']);
    return row as Project;
  });
}

export async function listProjects(db: Db, caller: Caller): Promise<Project[]> {
  return db('projects').where({ tenant_id: caller.tenantId }).orderBy('id').select('id', 'name', 'created_at');
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
