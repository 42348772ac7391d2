import type { SegmentRef as SegmentRefProto, SegmentsServiceServer } from '../../../gen/profiling/v1/segments.js';
import type { AppContext } from '../../app.js';
import * as segments from '../../segments/manage-segments.js';
import { pipelineOf } from './message-refs.js';
import { segmentToProto } from './mappers.js';
import { unary } from './unary.js';

function ref(r: SegmentRefProto | undefined): segments.SegmentRef {
  return { ...pipelineOf(r), segmentId: r?.segmentId ?? '' };
}

export function segmentsService(ctx: AppContext): SegmentsServiceServer {
  const { db } = ctx;
  return {
    createSegment: unary(ctx, 'segments:write', async (caller, req) => {
      const deps = { quotas: ctx.config.quotas, embedder: ctx.ruleEmbedder };
      return { segment: segmentToProto(await segments.createSegment(db, caller, req, req, deps)) };
    }),
    listSegments: unary(ctx, 'segments:read', async (caller, req) => ({
      segments: (await segments.listSegments(db, caller, req)).map(segmentToProto),
    })),
    getSegment: unary(ctx, 'segments:read', async (caller, req) => ({
      segment: segmentToProto(await segments.getSegment(db, caller, ref(req.ref))),
    })),
    updateSegment: unary(ctx, 'segments:write', async (caller, req) => {
      return {
        segment: segmentToProto(
          await segments.updateSegment(db, caller, ref(req.ref), req, {
            quotas: ctx.config.quotas,
            embedder: ctx.ruleEmbedder,
          }),
        ),
      };
    }),
    deploySegment: unary(ctx, 'segments:write', async (caller, req) => ({
      segment: segmentToProto(await segments.deploySegment(db, caller, ref(req.ref), ctx.config.quotas)),
    })),
    undeploySegment: unary(ctx, 'segments:write', async (caller, req) => ({
      segment: segmentToProto(await segments.undeploySegment(db, caller, ref(req.ref))),
    })),
    deleteSegment: unary(ctx, 'segments:write', async (caller, req) => {
      await segments.deleteSegment(db, caller, ref(req.ref));
      return {};
    }),
    listSegmentUsers: unary(ctx, 'segments:read', async (caller, req) => {
      const r = await segments.listSegmentUsers(db, caller, ref(req.ref), req);
      return { users: r.users.map((u) => ({ userId: u.user_id, score: u.score, since: u.since })), total: r.total };
    }),
  };
}
