import type { SegmentRef as SegmentRefProto, SegmentsServiceServer } from '../../../gen/profiling/v1/segments.js';
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
import { segmentToProto } from './mappers.js';
import { unary } from './unary.js';

function ref(r: SegmentRefProto | undefined): SegmentRef {
  return {
    projectId: requireId(r?.projectId, 'ref.project_id'),
    pipelineId: requireId(r?.pipelineId, 'ref.pipeline_id'),
    segmentId: r?.segmentId ?? '',
  };
}

export function segmentsService(ctx: AppContext): SegmentsServiceServer {
  const { db, starters } = ctx;
  return {
    createSegment: unary(ctx, async (caller, req) => {
      return { segment: segmentToProto(await createSegment(db, caller, req.projectId, req.pipelineId, req)) };
    }),
    listSegments: unary(ctx, async (caller, req) => ({
      segments: (await listSegments(db, caller, req.projectId, req.pipelineId)).map(segmentToProto),
    })),
    getSegment: unary(ctx, async (caller, req) => ({
      segment: segmentToProto(await getSegment(db, caller, ref(req.ref))),
    })),
    updateSegment: unary(ctx, async (caller, req) => {
      return {
        segment: segmentToProto(await updateSegment(db, { starters, log: ctx.log }, caller, ref(req.ref), req)),
      };
    }),
    deploySegment: unary(ctx, async (caller, req) => ({
      segment: segmentToProto(await deploySegment(db, { starters, log: ctx.log }, caller, ref(req.ref))),
    })),
    undeploySegment: unary(ctx, async (caller, req) => ({
      segment: segmentToProto(await undeploySegment(db, caller, ref(req.ref))),
    })),
    deleteSegment: unary(ctx, async (caller, req) => {
      await deleteSegment(db, caller, ref(req.ref));
      return {};
    }),
    listSegmentUsers: unary(ctx, async (caller, req) => {
      const r = await listSegmentUsers(db, caller, ref(req.ref), req);
      return { users: r.users.map((u) => ({ userId: u.user_id, score: u.score, since: u.since })), total: r.total };
    }),
  };
}
