import type { AppContext } from '../../app.js';
import * as segments from '../../segments/manage-segments.js';
import { pipelineRef } from './path-refs.js';
import { authenticated } from './authenticated.js';
import { createSegmentBody, pageQuery, read, updateSegmentBody } from './inputs.js';
import type { Request, Router } from './router.js';

const BASE = '/projects/:project_id/pipelines/:pipeline_id/segments';

function segmentRef(req: Request): segments.SegmentRef {
  return { ...pipelineRef(req), segmentId: req.params.segment_id };
}

export function addSegmentRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, async (who, req) => ({
      status: 201,
      body: await segments.createSegment(db, who, pipelineRef(req), read(createSegmentBody, await req.json()), {
        quotas: ctx.config.quotas,
        embedder: ctx.ruleEmbedder,
      }),
    })),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: { segments: await segments.listSegments(db, who, pipelineRef(req)) },
    })),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await segments.getSegment(db, who, segmentRef(req)),
    })),
  );
  router.add(
    'PUT',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => {
      return {
        status: 200,
        body: await segments.updateSegment(db, who, segmentRef(req), read(updateSegmentBody, await req.json()), {
          quotas: ctx.config.quotas,
          embedder: ctx.ruleEmbedder,
        }),
      };
    }),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/deploy`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await segments.deploySegment(db, who, segmentRef(req)),
    })),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/undeploy`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await segments.undeploySegment(db, who, segmentRef(req)),
    })),
  );
  router.add(
    'DELETE',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => {
      await segments.deleteSegment(db, who, segmentRef(req));
      return { status: 204 };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id/users`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await segments.listSegmentUsers(db, who, segmentRef(req), read(pageQuery, req.query)),
    })),
  );
}
