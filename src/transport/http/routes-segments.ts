import type { AppContext } from '../../app.js';
import {
  createSegment,
  deleteSegment,
  deploySegment,
  getSegment,
  listSegments,
  listSegmentUsers,
  undeploySegment,
  updateSegment,
  type SegmentRef,
} from '../../segments/manage-segments.js';
import { requireId } from '../../validation.js';
import { authenticated } from './authenticated.js';
import { createSegmentBody, pageQuery, read, updateSegmentBody } from './inputs.js';
import type { Request, Router } from './router.js';

const BASE = '/projects/:project_id/pipelines/:pipeline_id/segments';

function segmentRef(req: Request): SegmentRef {
  return {
    projectId: requireId(req.params.project_id, 'project_id'),
    pipelineId: requireId(req.params.pipeline_id, 'pipeline_id'),
    segmentId: req.params.segment_id,
  };
}

export function addSegmentRoutes(router: Router, ctx: AppContext): void {
  const { db, starters } = ctx;

  router.add(
    'POST',
    BASE,
    authenticated(ctx, async (who, req) => {
      const projectId = requireId(req.params.project_id, 'project_id');
      const pipelineId = requireId(req.params.pipeline_id, 'pipeline_id');
      return {
        status: 201,
        body: await createSegment(db, who, projectId, pipelineId, read(createSegmentBody, await req.json())),
      };
    }),
  );
  router.add(
    'GET',
    BASE,
    authenticated(ctx, async (who, req) => {
      const projectId = requireId(req.params.project_id, 'project_id');
      const pipelineId = requireId(req.params.pipeline_id, 'pipeline_id');
      return { status: 200, body: { segments: await listSegments(db, who, projectId, pipelineId) } };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await getSegment(db, who, segmentRef(req)),
    })),
  );
  router.add(
    'PUT',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => {
      return {
        status: 200,
        body: await updateSegment(
          db,
          { starters, log: ctx.log },
          who,
          segmentRef(req),
          read(updateSegmentBody, await req.json()),
        ),
      };
    }),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/deploy`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await deploySegment(db, { starters, log: ctx.log }, who, segmentRef(req)),
    })),
  );
  router.add(
    'POST',
    `${BASE}/:segment_id/undeploy`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await undeploySegment(db, who, segmentRef(req)),
    })),
  );
  router.add(
    'DELETE',
    `${BASE}/:segment_id`,
    authenticated(ctx, async (who, req) => {
      await deleteSegment(db, who, segmentRef(req));
      return { status: 204 };
    }),
  );
  router.add(
    'GET',
    `${BASE}/:segment_id/users`,
    authenticated(ctx, async (who, req) => ({
      status: 200,
      body: await listSegmentUsers(db, who, segmentRef(req), read(pageQuery, req.query)),
    })),
  );
}
