import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from './db/knex.js';
import { createTenant } from './auth/create-tenant.js';

export interface Demo {
  tenant_id: number;
  api_key: string;
  project_id: number;
  pipeline_id: number;
}

/**
 * With the embedded defaults, the first start creates a demo tenant with one project and one
 * pipeline, so a new user can call the API at once. Its key is kept in the data folder (the
 * database only has its hash) and printed at every start.
 */
export async function ensureDemoTenant(db: Db, dataDir: string): Promise<Demo> {
  const file = path.join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as Demo;
    const still = await db('projects').where({ id: demo.project_id, tenant_id: demo.tenant_id }).first('id');
    if (still) return demo;
  }
  const { tenant_id, api_key } = await createTenant(db, { name: 'demo' });
  const [project] = await db('projects').insert({ tenant_id, name: 'Demo project' }).returning('id');
  const [pipeline] = await db('pipelines').insert({ project_id: project.id, name: 'Default pipeline' }).returning('id');
  const demo: Demo = { tenant_id, api_key, project_id: project.id, pipeline_id: pipeline.id };
  writeFileSync(file, JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
  return demo;
}
