import type { AppContext } from '../../app.js';
import { createPipeline, createProject, listPipelines, listProjects } from '../../projects/projects.js';
import { getProfile, getTimeline, listProfiles, type ProfileRef } from '../../profiles/read-profiles.js';
import { identifyUsers } from '../../users/identify-users.js';
import { requireId } from '../../validation.js';
import { identifyUsersBody, listProfilesQuery, namedBody, pageQuery, read } from './inputs.js';
import { usersAtMost } from './json-budget.js';
import { MAX_USERS_PER_BATCH } from '../../users/validate-batch.js';
import { authenticated } from './authenticated.js';
import type { Request, Router } from './router.js';

/** `/api/v1/profiles/:user_id?project_id=…` */
function profileRef(req: Request): ProfileRef {
  return { projectId: requireId(req.query.project_id, 'project_id'), userId: req.params.user_id };
}

/** A batch over the users limit is refused while its body is read, before it is parsed. */
const BATCH_LIMITS = { maxItems: { users: { max: MAX_USERS_PER_BATCH, error: usersAtMost } } };

/** The documented Users and Profiles paths, plus projects and pipelines. Each route is a few lines. */
export function addApiRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;

  router.add(
    'POST',
    '/api/v1/users',
    authenticated(ctx, async (who, req) => {
      const result = await identifyUsers(
        { db, batches: ctx.starters, log: ctx.log, quotas: ctx.config.quotas },
        who,
        read(identifyUsersBody, await req.json(BATCH_LIMITS)),
        req.header('idempotency-key'),
      );
      return { status: 202, body: result };
    }),
  );

  router.add(
    'GET',
    '/api/v1/profiles',
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await listProfiles(db, who, read(listProfilesQuery, req.query)),
    })),
  );

  router.add(
    'GET',
    '/api/v1/profiles/:user_id',
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await getProfile(db, who, profileRef(req)),
    })),
  );

  router.add(
    'GET',
    '/api/v1/profiles/:user_id/timeline',
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await getTimeline(db, who, { ...profileRef(req), ...read(pageQuery, req.query) }),
    })),
  );

  router.add(
    'POST',
    '/api/v1/projects',
    authenticated(ctx, async (who, req) => {
      return { status: 201, body: await createProject(db, who, read(namedBody, await req.json())) };
    }),
  );

  router.add(
    'GET',
    '/api/v1/projects',
    authenticated(ctx, async (who) => ({
      status: 200,
      body: { projects: await listProjects(db, who) },
    })),
  );

  router.add(
    'POST',
    '/projects/:project_id/pipelines',
    authenticated(ctx, async (who, req) => {
      const projectId = requireId(req.params.project_id, 'project_id');
      return { status: 201, body: await createPipeline(db, who, projectId, read(namedBody, await req.json())) };
    }),
  );

  router.add(
    'GET',
    '/projects/:project_id/pipelines',
    authenticated(ctx, async (who, req) => {
      return {
        status: 200,
        body: { pipelines: await listPipelines(db, who, requireId(req.params.project_id, 'project_id')) },
      };
    }),
  );
}
