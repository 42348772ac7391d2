import type { AppContext } from '../../app.js';
import { authenticateClient } from '../../auth/api-keys.js';
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
  const caller = (req: Request) => authenticateClient(ctx, req.clientAddress, req.header('x-api-key'));

  router.add('POST', BASE, async (req) => {
    const who = await caller(req);
    const projectId = requireId(req.params.project_id, 'project_id');
    const pipelineId = requireId(req.params.pipeline_id, 'pipeline_id');
    return { status: 201, body: await createSegment(db, who, projectId, pipelineId, await req.json()) };
  });
  router.add('GET', BASE, async (req) => {
    const who = await caller(req);
    const projectId = requireId(req.params.project_id, 'project_id');
    const pipelineId = requireId(req.params.pipeline_id, 'pipeline_id');
    return { status: 200, body: { segments: await listSegments(db, who, projectId, pipelineId) } };
  });
  router.add('GET', `${BASE}/:segment_id`, async (req) => ({
    status: 200,
    body: await getSegment(db, await caller(req), segmentRef(req)),
  }));
  router.add('PUT', `${BASE}/:segment_id`, async (req) => {
    const who = await caller(req);
    return {
      status: 200,
      body: await updateSegment(db, { starters, log: ctx.log }, who, segmentRef(req), await req.json()),
    };
  });
  router.add('POST', `${BASE}/:segment_id/deploy`, async (req) => ({
    status: 200,
    body: await deploySegment(db, { starters, log: ctx.log }, await caller(req), segmentRef(req)),
  }));
  router.add('POST', `${BASE}/:segment_id/undeploy`, async (req) => ({
    status: 200,
    body: await undeploySegment(db, await caller(req), segmentRef(req)),
  }));
  router.add('DELETE', `${BASE}/:segment_id`, async (req) => {
    await deleteSegment(db, await caller(req), segmentRef(req));
    return { status: 204 };
  });
  router.add('GET', `${BASE}/:segment_id/users`, async (req) => ({
    status: 200,
    body: await listSegmentUsers(db, await caller(req), segmentRef(req), req.query),
  }));
}
