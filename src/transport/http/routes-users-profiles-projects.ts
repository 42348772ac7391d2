import { z } from 'zod';
import type { AppContext } from '../../app.js';
import { createPipeline, createProject, listPipelines, listProjects } from '../../projects/projects.js';
import { getProfile, getTimeline, listProfiles, type ProfileRef } from '../../profiles/read-profiles.js';
import { identifyUsers } from '../../ingest/identify-users.js';
import { getBatch } from '../../ingest/read-batch.js';
import { requireId } from '../../validation.js';
import {
  createProjectBody,
  identifyUsersBody,
  listProfilesQuery,
  namedBody,
  pageQuery,
  projectIdQuery,
  read,
} from './inputs.js';
import { usersAtMost } from './json-budget.js';
import { MAX_USERS_PER_BATCH } from '../../ingest/validate-batch.js';
import { authenticated } from './authenticated.js';
import type { Request, Router } from './router.js';
import { errors, idempotencyKey, routeDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

/** `/api/v1/profiles/:user_id?project_id=…` */
function profileRef(req: Request): ProfileRef {
  return { projectId: read(projectIdQuery, req.query).project_id, userId: req.params.user_id };
}

/** A batch over the users limit is refused while its body is read, before it is parsed. */
const BATCH_LIMITS = { maxItems: { users: { max: MAX_USERS_PER_BATCH, error: usersAtMost } } };

/** The documented Users and Profiles paths, plus projects and pipelines. Each route is a few lines. */
export function addApiRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;

  router.add(
    'POST',
    '/api/v1/users',
    authenticated(ctx, 'ingest', async (who, req) => {
      const result = await identifyUsers(
        { db, batches: ctx.starters, log: ctx.log, quotas: ctx.config.quotas, userHash: ctx.userHash },
        who,
        read(identifyUsersBody, await req.json(BATCH_LIMITS)),
        req.header('idempotency-key'),
      );
      return { status: 202, body: result };
    }),
    routeDoc({
      operationId: 'identifyUsers',
      summary: 'Identify Users: submit a batch for analysis',
      description:
        "At most 1,000 users; processed in the background after the 202. A user's attributes, merged with those stored, hold at most 200 keys and 32,768 bytes: past it, 422 naming `users[i].attributes`.",
      tag: 'Users',
      auth: 'apiKey',
      headers: idempotencyKey,
      body: identifyUsersBody,
      responses: {
        202: { description: 'Accepted; processing runs in the background', body: out.identifyUsersAnswer },
        ...errors(404, 422),
      },
    }),
  );

  router.add(
    'GET',
    '/api/v1/batches/:source_id',
    authenticated(ctx, 'ingest', async (who, req) => ({
      status: 200,
      body: await getBatch(db, who, {
        projectId: read(projectIdQuery, req.query).project_id,
        sourceId: requireId(req.params.source_id, 'source_id'),
      }),
    })),
    routeDoc({
      operationId: 'getBatch',
      summary: "A submitted batch's outcome: processed, failed, suppressed and erased items",
      tag: 'Users',
      auth: 'apiKey',
      query: projectIdQuery,
      responses: { 200: { description: 'The batch', body: out.batch }, ...errors(400, 404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/profiles',
    authenticated(ctx, 'profiles:read', async (who, req) => ({
      status: 200,
      body: await listProfiles(db, who, read(listProfilesQuery, req.query)),
    })),
    routeDoc({
      operationId: 'listProfiles',
      summary: 'List Profiles, filtered and paged',
      description: 'Most recently updated first, or highest churn risk first with `sort=churn_risk`.',
      tag: 'Profiles',
      auth: 'apiKey',
      query: listProfilesQuery,
      responses: { 200: { description: 'A page of profiles', body: out.profileList }, ...errors(400, 404) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/profiles/:user_id',
    authenticated(ctx, 'profiles:read', async (who, req) => ({
      status: 200,
      body: await getProfile(db, who, profileRef(req)),
    })),
    routeDoc({
      operationId: 'getProfile',
      summary: 'Get Profile',
      tag: 'Profiles',
      auth: 'apiKey',
      query: projectIdQuery,
      responses: {
        200: { description: 'The profile, with its current segments', body: out.profileWithSegments },
        ...errors(400, 404),
      },
    }),
  );

  router.add(
    'GET',
    '/api/v1/profiles/:user_id/timeline',
    authenticated(ctx, 'profiles:read', async (who, req) => ({
      status: 200,
      body: await getTimeline(db, who, { ...profileRef(req), ...read(pageQuery, req.query) }),
    })),
    routeDoc({
      operationId: 'getTimeline',
      summary: 'Get User Timeline, newest first',
      tag: 'Profiles',
      auth: 'apiKey',
      query: projectIdQuery.extend(pageQuery.shape),
      responses: { 200: { description: 'A page of analysed messages', body: out.timeline }, ...errors(400, 404) },
    }),
  );

  router.add(
    'POST',
    '/api/v1/projects',
    authenticated(ctx, 'projects', async (who, req) => {
      return {
        status: 201,
        body: await createProject(db, who, read(createProjectBody, await req.json()), ctx.config.quotas),
      };
    }),
    routeDoc({
      operationId: 'createProject',
      summary: 'Create a project',
      description:
        'A tenant has at most TENANT_PROJECTS (100) projects: past it, 422. `message_retention_days` (extension): ' +
        'see updateProject.',
      tag: 'Projects',
      auth: 'apiKey',
      body: createProjectBody,
      responses: { 201: { description: 'The project', body: out.project }, ...errors(422) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/projects',
    authenticated(ctx, null, async (who) => ({
      status: 200,
      body: { projects: await listProjects(db, who) },
    })),
    routeDoc({
      operationId: 'listProjects',
      summary: "List the tenant's projects",
      tag: 'Projects',
      auth: 'apiKey',
      responses: { 200: { description: 'The projects', body: z.object({ projects: z.array(out.project) }) } },
    }),
  );

  router.add(
    'POST',
    '/projects/:project_id/pipelines',
    authenticated(ctx, 'projects', async (who, req) => {
      const projectId = requireId(req.params.project_id, 'project_id');
      return {
        status: 201,
        body: await createPipeline(db, who, projectId, read(namedBody, await req.json()), ctx.config.quotas),
      };
    }),
    routeDoc({
      operationId: 'createPipeline',
      summary: 'Create a pipeline in a project',
      description: 'A project has at most TENANT_PIPELINES_PER_PROJECT (10) pipelines: past it, 422.',
      tag: 'Projects',
      auth: 'apiKey',
      body: namedBody,
      responses: { 201: { description: 'The pipeline', body: out.pipeline }, ...errors(404, 422) },
    }),
  );

  router.add(
    'GET',
    '/projects/:project_id/pipelines',
    authenticated(ctx, null, async (who, req) => {
      return {
        status: 200,
        body: { pipelines: await listPipelines(db, who, requireId(req.params.project_id, 'project_id')) },
      };
    }),
    routeDoc({
      operationId: 'listPipelines',
      summary: "List a project's pipelines",
      tag: 'Projects',
      auth: 'apiKey',
      responses: {
        200: { description: 'The pipelines', body: z.object({ pipelines: z.array(out.pipeline) }) },
        ...errors(400, 404),
      },
    }),
  );
}
