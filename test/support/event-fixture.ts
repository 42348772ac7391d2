import type { Db } from '../../src/db/knex.js';

/**
 * The rows a delivery attempt reads, written straight to the database: a tenant, project and
 * pipeline, one user and one `user_added` event. For tests of the delivery activity alone.
 */
export async function insertEventFixture(db: Db, tenantName: string): Promise<{ pipelineId: number; eventId: number }> {
  const [tenant] = await db('tenants').insert({ name: tenantName }).returning('id');
  const [project] = await db('projects').insert({ tenant_id: tenant.id, name: 'p' }).returning('id');
  const [pipeline] = await db('pipelines').insert({ project_id: project.id, name: 'p' }).returning('id');
  const [user] = await db('users')
    .insert({ project_id: project.id, user_id: 'u', source_label: 'api' })
    .returning('id');
  const [event] = await db('events')
    .insert({
      project_id: project.id,
      pipeline_id: pipeline.id,
      segment_slug: 's',
      segment_name: 'S',
      user_pk: user.id,
      user_id: 'u',
      event_type: 'user_added',
      score: 1,
      seq: 1,
    })
    .returning('id');
  return { pipelineId: pipeline.id, eventId: event.id };
}
