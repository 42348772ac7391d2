import type { AppContext } from '../../app.js';
import type { ErasureView } from '../../privacy/erasures.js';
import { getErasure, listErasures } from '../../privacy/erasures.js';
import { eraseUser } from '../../privacy/erase-user.js';
import { liftSuppression, listSuppressions } from '../../privacy/suppressions.js';
import { unary } from './unary.js';

/** The privacy RPCs of ProfilesService (docs/privacy.md), over the same use cases as the gateway. */
export function privacyHandlers(ctx: AppContext) {
  const deps = { db: ctx.db, userHash: ctx.userHash };
  return {
    deleteProfile: unary(
      ctx,
      'privacy',
      async (caller, req: { projectId: number; userId: string; suppress: boolean }) => ({
        erasure: erasureToProto(await eraseUser(deps, caller, req)),
      }),
    ),
    getErasure: unary(ctx, 'privacy', async (caller, req: { erasureId: string }) => ({
      erasure: erasureToProto(await getErasure(ctx.db, caller, req.erasureId)),
    })),
    listErasures: unary(
      ctx,
      'privacy',
      async (caller, req: { projectId: number; userId?: string; kind?: string; limit?: number; offset?: number }) => ({
        erasures: (await listErasures(deps, caller, req)).erasures.map(erasureToProto),
      }),
    ),
    listSuppressions: unary(
      ctx,
      'privacy',
      async (caller, req: { projectId: number; limit?: number; offset?: number }) => ({
        suppressions: (await listSuppressions(ctx.db, caller, req)).suppressions.map((s) => ({
          userIdHash: s.user_id_hash,
          createdAt: s.created_at,
          erasureId: s.erasure_id ?? '',
        })),
      }),
    ),
    liftSuppression: unary(ctx, 'privacy', async (caller, req: { projectId: number; userId: string }) => {
      await liftSuppression(deps, caller, req);
      return {};
    }),
  };
}

function erasureToProto(e: ErasureView) {
  return {
    id: e.id,
    kind: e.kind,
    state: e.state,
    projectId: e.project_id,
    userIdHash: e.user_id_hash ?? '',
    suppressed: e.suppressed,
    requestedBy: e.requested_by ?? '',
    counts: {
      batchItems: e.counts.batch_items,
      messages: e.counts.messages,
      memberships: e.counts.memberships,
      events: e.counts.events,
      profiles: e.counts.profiles,
      userRemovedEvents: e.counts.user_removed_events,
    },
    requestedAt: e.requested_at,
    completedAt: e.completed_at ?? undefined,
  };
}
