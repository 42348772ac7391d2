import { z } from 'zod';
import type { AppContext } from '../../app.js';
import * as segments from '../../segments/manage-segments.js';
import { pipelineRef } from './path-refs.js';
import { authenticated } from './authenticated.js';
import { createSegmentBody, pageQuery, read, updateSegmentBody } from './inputs.js';
import type { Request, Router } from './router.js';
import { errors, routeDoc, type RouteDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

const BASE = '/projects/:project_id/pipelines/:pipeline_id/segments';

function segmentRef(req: Request): segments.SegmentRef {
  return { ...pipelineRef(req), segmentId: req.params.segment_id };
}

const segmentDoc = (doc: Omit<RouteDoc, 'tag' | 'auth'>) => routeDoc({ ...doc, tag: 'Segments', auth: 'apiKey' });
const one = (description: string) => ({ 200: { description, body: out.segment }, ...errors(400, 404) });

export function addSegmentRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, 'segments:write', async (who, req) => ({
      status: 201,
      body: await segments.createSegment(db, who, pipelineRef(req), read(createSegmentBody, await req.json()), {
        quotas: ctx.config.quotas,
        embedder: ctx.ruleEmbedder,
      }),
    })),
    segmentDoc({
      operationId: 'createSegment',
      summary: 'Create a segment (a draft until deployed)',
      body: createSegmentBody,
      responses: {
        201: { description: 'The segment', body: out.segment },
        ...errors(404, 409, 422),
        503: { ...errors(503)[503], description: 'The database or the embedding model is unavailable' },
      },
    }),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, 'segments:read', async (who, req) => ({
      status: 200,
      body: { segments: await segments.listSegments(db, who, pipelineRef(req)) },
    })),
    segmentDoc({
      operationId: 'listSegments',
      summary: "List a pipeline's segments",
      responses: {
        200: { description: 'The segments', body: z.object({ segments: z.array(out.segment) }) },
        ...errors(400, 404),
      },
    }),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id`,
    authenticated(ctx, 'segments:read', async (who, req) => ({
      status: 200,
      body: await segments.getSegment(db, who, segmentRef(req)),
    })),
    segmentDoc({ operationId: 'getSegment', summary: 'Get a segment', responses: one('The segment') }),
  );
  router.add(
    'PUT',
    `${BASE}/:segment_id`,
    authenticated(ctx, 'segments:write', async (who, req) => {
      return {
        status: 200,
        body: await segments.updateSegment(db, who, segmentRef(req), read(updateSegmentBody, await req.json()), {
          quotas: ctx.config.quotas,
          embedder: ctx.ruleEmbedder,
        }),
      };
    }),
    segmentDoc({
      operationId: 'updateSegment',
      summary: 'Update a segment (absent fields stay as they are)',
      body: updateSegmentBody,
      responses: { ...one('The updated segment'), ...errors(422) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/deploy`,
    authenticated(ctx, 'segments:write', async (who, req) => ({
      status: 200,
      body: await segments.deploySegment(db, who, segmentRef(req), ctx.config.quotas),
    })),
    segmentDoc({
      operationId: 'deploySegment',
      summary: 'Deploy a segment: users are matched against it from now on',
      description: 'A project has at most TENANT_DEPLOYED_SEGMENTS_PER_PROJECT (100) deployed segments: past it, 422.',
      responses: { ...one('The deployed segment'), ...errors(422) },
    }),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/undeploy`,
    authenticated(ctx, 'segments:write', async (who, req) => ({
      status: 200,
      body: await segments.undeploySegment(db, who, segmentRef(req)),
    })),
    segmentDoc({
      operationId: 'undeploySegment',
      summary: 'Undeploy a segment: back to a draft',
      responses: one('The segment, a draft again'),
    }),
  );
  router.add(
    'DELETE',
    `${BASE}/:segment_id`,
    authenticated(ctx, 'segments:write', async (who, req) => {
      await segments.deleteSegment(db, who, segmentRef(req));
      return { status: 204 };
    }),
    segmentDoc({
      operationId: 'deleteSegment',
      summary: 'Delete a segment',
      responses: { 204: { description: 'Deleted' }, ...errors(400, 404) },
    }),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id/users`,
    authenticated(ctx, 'segments:read', async (who, req) => ({
      status: 200,
      body: await segments.listSegmentUsers(db, who, segmentRef(req), read(pageQuery, req.query)),
    })),
    segmentDoc({
      operationId: 'listSegmentUsers',
      summary: "List a segment's members",
      query: pageQuery,
      responses: { 200: { description: 'A page of members', body: out.segmentUsers }, ...errors(400, 404) },
    }),
  );
}
