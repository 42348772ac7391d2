import type { ProfilesServiceServer } from '../../../gen/profiling/v1/profiles.js';
import type { ProjectsServiceServer } from '../../../gen/profiling/v1/projects.js';
import type { UsersServiceServer } from '../../../gen/profiling/v1/users.js';
import type { AppContext } from '../../app.js';
import {
  createPipeline,
  createProject,
  getProject,
  listPipelines,
  listProjects,
  updateProject,
} from '../../projects/projects.js';
import { privacyHandlers } from './handlers-privacy.js';
import { getProfile, getTimeline, listProfiles } from '../../profiles/read-profiles.js';
import { identifyUsers } from '../../ingest/identify-users.js';
import { getBatch } from '../../ingest/read-batch.js';
import type { Pipeline, Project } from '../../projects/projects.js';
import { membershipToProto, profileToProto, sortFromProto, timelineEntryToProto, trendFromProto } from './mappers.js';
import { unary } from './unary.js';

export function usersService(ctx: AppContext): UsersServiceServer {
  return {
    identifyUsers: unary(ctx, 'ingest', async (caller, req) => {
      const input = {
        projectId: req.projectId,
        sourceLabel: req.sourceLabel,
        users: req.users.map((u) => ({
          userId: u.userId,
          text: u.text,
          attributes: u.attributes,
          timestamp: u.timestamp,
        })),
      };
      const r = await identifyUsers(
        { db: ctx.db, batches: ctx.starters, log: ctx.log, quotas: ctx.config.quotas, userHash: ctx.userHash },
        caller,
        input,
        req.idempotencyKey,
      );
      return { accepted: r.accepted, sourceId: r.source_id, message: r.message, suppressed: r.suppressed ?? 0 };
    }),
    getBatch: unary(ctx, 'ingest', async (caller, req) => {
      const b = await getBatch(ctx.db, caller, req);
      return {
        batch: {
          sourceId: b.source_id,
          projectId: b.project_id,
          sourceLabel: b.source_label,
          status: b.status,
          accepted: b.accepted,
          suppressed: b.suppressed,
          processed: b.processed ?? 0,
          failed: b.failed ?? 0,
          erased: b.erased,
          createdAt: b.created_at,
          completedAt: b.completed_at ?? undefined,
        },
      };
    }),
  };
}

export function profilesService(ctx: AppContext): ProfilesServiceServer {
  return {
    listProfiles: unary(ctx, 'profiles:read', async (caller, req) => {
      const r = await listProfiles(ctx.db, caller, {
        ...req,
        sentimentTrend: trendFromProto(req.sentimentTrend),
        sort: sortFromProto(req.sort),
      });
      return { users: r.users.map(profileToProto), total: r.total, nextAfter: r.next_after ?? '' };
    }),
    getProfile: unary(ctx, 'profiles:read', async (caller, req) => {
      const p = await getProfile(ctx.db, caller, req);
      return { profile: profileToProto(p), segments: p.segments.map(membershipToProto) };
    }),
    getUserTimeline: unary(ctx, 'profiles:read', async (caller, req) => {
      const r = await getTimeline(ctx.db, caller, req);
      return { userId: r.user_id, timeline: r.timeline.map(timelineEntryToProto) };
    }),
    ...privacyHandlers(ctx),
  };
}

export function projectsService(ctx: AppContext): ProjectsServiceServer {
  return {
    createProject: unary(ctx, 'projects', async (caller, req) => ({
      project: projectToProto(
        await createProject(
          ctx.db,
          caller,
          { name: req.name, message_retention_days: req.messageRetentionDays },
          ctx.config.quotas,
        ),
      ),
    })),
    getProject: unary(ctx, null, async (caller, req) => ({
      project: projectToProto(await getProject(ctx.db, caller, req.projectId)),
    })),
    updateProject: unary(ctx, 'projects', async (caller, req) => ({
      project: projectToProto(
        await updateProject(ctx.db, caller, req.projectId, {
          name: req.name,
          // 0 turns retention off: proto3 has no null.
          message_retention_days: req.messageRetentionDays === 0 ? null : req.messageRetentionDays,
        }),
      ),
    })),
    listProjects: unary(ctx, null, async (caller) => ({
      projects: (await listProjects(ctx.db, caller)).map(projectToProto),
    })),
    createPipeline: unary(ctx, 'projects', async (caller, req) => ({
      pipeline: pipelineToProto(
        await createPipeline(ctx.db, caller, req.projectId, { name: req.name }, ctx.config.quotas),
      ),
    })),
    listPipelines: unary(ctx, null, async (caller, req) => ({
      pipelines: (await listPipelines(ctx.db, caller, req.projectId)).map(pipelineToProto),
    })),
  };
}

function pipelineToProto(p: Pipeline) {
  return { id: p.id, projectId: p.project_id, name: p.name, createdAt: p.created_at };
}

function projectToProto(p: Project) {
  return {
    id: p.id,
    name: p.name,
    createdAt: p.created_at,
    ...(p.message_retention_days !== null && { messageRetentionDays: p.message_retention_days }),
  };
}
