import type { AppContext } from '../../app.js';
import { authenticateClient } from '../../auth/api-keys.js';
import { createPipeline, createProject, listPipelines, listProjects } from '../../projects/projects.js';
import { getProfile, getTimeline, listProfiles } from '../../profiles/read-profiles.js';
import { identifyUsers } from '../../users/identify-users.js';
import { requireId, requireObject } from '../../validation.js';
import type { Request, Router } from './router.js';

/** The documented Users and Profiles paths, plus projects and pipelines. Each route is a few lines. */
export function addApiRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;
  const caller = (req: Request) => authenticateClient(ctx, req.clientAddress, req.header('x-api-key'));

  router.add('POST', '/api/v1/users', async (req) => {
    const who = await caller(req);
    const result = await identifyUsers(
      { db, batches: ctx.starters, log: ctx.log },
      who,
      await req.json(),
      req.header('idempotency-key'),
    );
    return { status: 202, body: result };
  });

  router.add('GET', '/api/v1/profiles', async (req) => ({
    status: 200,
    body: await listProfiles(db, await caller(req), req.query),
  }));

  router.add('GET', '/api/v1/profiles/:user_id', async (req) => ({
    status: 200,
    body: await getProfile(db, await caller(req), { project_id: req.query.project_id, user_id: req.params.user_id }),
  }));

  router.add('GET', '/api/v1/profiles/:user_id/timeline', async (req) => ({
    status: 200,
    body: await getTimeline(db, await caller(req), { ...req.query, user_id: req.params.user_id }),
  }));

  router.add('POST', '/api/v1/projects', async (req) => {
    const who = await caller(req);
    return { status: 201, body: await createProject(db, who, requireObject(await req.json())) };
  });

  router.add('GET', '/api/v1/projects', async (req) => ({
    status: 200,
    body: { projects: await listProjects(db, await caller(req)) },
  }));

  router.add('POST', '/projects/:project_id/pipelines', async (req) => {
    const who = await caller(req);
    const projectId = requireId(req.params.project_id, 'project_id');
    return { status: 201, body: await createPipeline(db, who, projectId, requireObject(await req.json())) };
  });

  router.add('GET', '/projects/:project_id/pipelines', async (req) => {
    const who = await caller(req);
    return {
      status: 200,
      body: { pipelines: await listPipelines(db, who, requireId(req.params.project_id, 'project_id')) },
    };
  });
}
