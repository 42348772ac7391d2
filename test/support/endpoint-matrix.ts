import { randomBytes } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';
import { expect } from 'vitest';
import { SentimentTrend } from '../../gen/profiling/v1/common.js';
import { KeysServiceService } from '../../gen/profiling/v1/keys.js';
import { LabelsServiceService } from '../../gen/profiling/v1/labels.js';
import { ProfilesServiceService } from '../../gen/profiling/v1/profiles.js';
import { ProjectsServiceService } from '../../gen/profiling/v1/projects.js';
import { SegmentsServiceService } from '../../gen/profiling/v1/segments.js';
import { UsersServiceService } from '../../gen/profiling/v1/users.js';
import { WebhooksServiceService } from '../../gen/profiling/v1/webhooks.js';
import { call, stack, waitFor, waitForBatch, withDb } from './api.js';
import { type grpcClients, rpc } from './grpc.js';

/**
 * Every operation a tenant's API key can call, on the gateway and over gRPC, with the ids it
 * addresses and the scope it needs, as the issue and docs/api.md state them (written here, not read
 * from the service, so a wrong scope in the service fails the matrix): the isolation matrix
 * (isolation.test.ts) calls them across tenants, the scope matrix (scopes.test.ts) with a key of
 * each scope and with keys limited to some projects.
 */

/** The scope(s) an operation needs, all of them; null: any valid key. */
export type Needs = string | string[] | null;

export const TAG = randomBytes(4).toString('hex');
export const NEGATIVE = `This is terrible, the app keeps crashing and I want to cancel my subscription (${TAG}).`;
/** B's analysed user: the one the matrix tries to erase with A's key, and must find intact afterwards. */
export const B_USER = `b-user-${TAG}`;

/** The ids an endpoint addresses, outermost first. */
export interface Ids {
  project: number;
  pipeline: number;
  segment: string;
  webhook: number;
  delivery: number;
  user: string;
  /** An erasure's public id (a UUID), addressed without a project. */
  erasure: string;
  /** A suppressed user id. */
  suppressed: string;
  /** A submitted batch (its source id). */
  batch: number;
  /** A custom label of the project (its name), ready. */
  label: string;
  /** An API key of the tenant limited to the project (its id), made to be revoked. */
  key: string;
}
export type Level = keyof Ids;

export const MISSING: Ids = {
  project: 999_999_901,
  pipeline: 999_999_902,
  segment: 'no-such-segment',
  webhook: 999_999_903,
  delivery: 999_999_904,
  user: 'no-such-user',
  // Well-formed, so it is looked up like a real one.
  erasure: '00000000-0000-4000-8000-000000000000',
  suppressed: 'no-such-user',
  batch: 999_999_905,
  label: 'no-such-label',
  key: '00000000-0000-4000-8000-000000000001',
};

/** 5 + 5 examples for the label routes' bodies, each text unique to `tag`. */
export const labelExamples = (tag: string) =>
  Array.from({ length: 10 }, (_, i) => ({ text: `${tag} example ${i} ${TAG}`, match: i < 5 }));

export interface HttpEndpoint {
  name: string;
  scope: Needs;
  levels: Level[];
  method: string;
  path: (i: Ids) => string;
  body?: (i: Ids) => unknown;
}

export const pl = (i: Ids) => `/projects/${i.project}/pipelines/${i.pipeline}`;
export const lb = (i: Ids) => `/api/v1/projects/${i.project}/labels`;
export const HTTP_ON_RESOURCES: HttpEndpoint[] = [
  {
    name: 'revoke API key',
    scope: 'keys',
    levels: ['key'],
    method: 'DELETE',
    path: (i) => `/api/v1/api-keys/${i.key}`,
  },
  {
    name: 'create label',
    scope: 'labels:write',
    levels: ['project'],
    method: 'POST',
    path: lb,
    body: () => ({ name: 'intruder', examples: labelExamples('intruder') }),
  },
  { name: 'list labels', scope: 'labels:read', levels: ['project'], method: 'GET', path: lb },
  {
    name: 'get label',
    scope: 'labels:read',
    levels: ['project', 'label'],
    method: 'GET',
    path: (i) => `${lb(i)}/${i.label}`,
  },
  {
    name: 'update label',
    scope: 'labels:write',
    levels: ['project', 'label'],
    method: 'PUT',
    path: (i) => `${lb(i)}/${i.label}`,
    body: () => ({ examples: labelExamples('hijacked') }),
  },
  {
    name: 'add label examples',
    scope: 'labels:write',
    levels: ['project', 'label'],
    method: 'POST',
    path: (i) => `${lb(i)}/${i.label}/examples`,
    body: () => ({ examples: [{ text: `intruder's extra ${TAG}`, match: true }] }),
  },
  {
    name: 'classify with label',
    scope: 'labels:read',
    levels: ['project', 'label'],
    method: 'POST',
    path: (i) => `${lb(i)}/${i.label}/classify`,
    body: () => ({ texts: ['hello'] }),
  },
  {
    name: 'delete label',
    scope: 'labels:write',
    levels: ['project', 'label'],
    method: 'DELETE',
    path: (i) => `${lb(i)}/${i.label}`,
  },
  {
    name: 'identify users',
    scope: 'ingest',
    levels: ['project'],
    method: 'POST',
    path: () => '/api/v1/users',
    body: (i) => ({ project_id: i.project, users: [{ user_id: 'intruder', text: 'hello' }] }),
  },
  {
    name: 'get batch',
    scope: 'ingest',
    levels: ['project', 'batch'],
    method: 'GET',
    path: (i) => `/api/v1/batches/${i.batch}?project_id=${i.project}`,
  },
  {
    name: 'list profiles',
    scope: 'profiles:read',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/profiles?project_id=${i.project}`,
  },
  {
    name: 'get profile',
    scope: 'profiles:read',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}?project_id=${i.project}`,
  },
  {
    name: 'get timeline',
    scope: 'profiles:read',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}/timeline?project_id=${i.project}`,
  },
  {
    // Erasing an id the project never saw is a 202 with zero counts, so only the project is B's:
    // the user named is always B's own, the one erasing it would destroy.
    name: 'erase profile',
    scope: 'privacy',
    levels: ['project'],
    method: 'DELETE',
    path: (i) => `/api/v1/profiles/${B_USER}?project_id=${i.project}&suppress=true`,
  },
  {
    name: 'export profile',
    scope: 'privacy',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}/export?project_id=${i.project}`,
  },
  {
    name: 'get erasure',
    scope: 'privacy',
    levels: ['erasure'],
    method: 'GET',
    path: (i) => `/api/v1/erasures/${i.erasure}`,
  },
  {
    name: 'list erasures',
    scope: 'privacy',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/erasures?project_id=${i.project}&kind=erasure`,
  },
  {
    name: 'list suppressions',
    scope: 'privacy',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/suppressions?project_id=${i.project}`,
  },
  {
    name: 'lift suppression',
    scope: 'privacy',
    levels: ['project', 'suppressed'],
    method: 'DELETE',
    path: (i) => `/api/v1/suppressions/${i.suppressed}?project_id=${i.project}`,
  },
  {
    name: 'get project',
    scope: null,
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/projects/${i.project}`,
  },
  {
    name: 'update project',
    scope: ['projects', 'privacy'],
    levels: ['project'],
    method: 'PUT',
    path: (i) => `/api/v1/projects/${i.project}`,
    body: () => ({ name: 'Hijacked', message_retention_days: 1 }),
  },
  {
    name: 'create pipeline',
    scope: 'projects',
    levels: ['project'],
    method: 'POST',
    path: (i) => `/projects/${i.project}/pipelines`,
    body: () => ({ name: 'intruder' }),
  },
  {
    name: 'list pipelines',
    scope: null,
    levels: ['project'],
    method: 'GET',
    path: (i) => `/projects/${i.project}/pipelines`,
  },
  {
    name: 'create segment',
    scope: 'segments:write',
    levels: ['project', 'pipeline'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments`,
    body: () => ({ name: 'Intruder', rule: { field: 'avg_sentiment', op: '<', value: 0 } }),
  },
  {
    name: 'list segments',
    scope: 'segments:read',
    levels: ['project', 'pipeline'],
    method: 'GET',
    path: (i) => `${pl(i)}/segments`,
  },
  {
    name: 'get segment',
    scope: 'segments:read',
    levels: ['project', 'pipeline', 'segment'],
    method: 'GET',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
  },
  {
    name: 'update segment',
    scope: 'segments:write',
    levels: ['project', 'pipeline', 'segment'],
    method: 'PUT',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
    body: () => ({ name: 'Hijacked' }),
  },
  {
    name: 'deploy segment',
    scope: 'segments:write',
    levels: ['project', 'pipeline', 'segment'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments/${i.segment}/deploy`,
  },
  {
    name: 'undeploy segment',
    scope: 'segments:write',
    levels: ['project', 'pipeline', 'segment'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments/${i.segment}/undeploy`,
  },
  {
    name: 'delete segment',
    scope: 'segments:write',
    levels: ['project', 'pipeline', 'segment'],
    method: 'DELETE',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
  },
  {
    name: 'segment users',
    scope: 'segments:read',
    levels: ['project', 'pipeline', 'segment'],
    method: 'GET',
    path: (i) => `${pl(i)}/segments/${i.segment}/users`,
  },
  {
    name: 'create webhook',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks`,
    body: () => ({ url: 'https://example.com/intruder' }),
  },
  {
    name: 'list webhooks',
    scope: 'webhooks:read',
    levels: ['project', 'pipeline'],
    method: 'GET',
    path: (i) => `${pl(i)}/webhooks`,
  },
  {
    name: 'get webhook',
    scope: 'webhooks:read',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'GET',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
  },
  {
    name: 'update webhook',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'PUT',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
    body: () => ({ is_active: false, url: 'https://example.com/hijacked' }),
  },
  {
    name: 'delete webhook',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'DELETE',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
  },
  {
    name: 'list deliveries',
    scope: 'webhooks:read',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'GET',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/deliveries`,
  },
  {
    name: 'resend delivery',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook', 'delivery'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/deliveries/${i.delivery}/resend`,
  },
  {
    name: 'rotate webhook secret',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/rotate-secret`,
    body: () => ({ secret: 'hijacked-secret-123' }),
  },
  {
    name: 'end secret overlap',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/end-secret-overlap`,
  },
  {
    name: 'recover webhook',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/recover`,
    body: () => ({ since: '2026-01-01T00:00:00Z' }),
  },
  {
    name: 'send test event',
    scope: 'webhooks:write',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/test`,
  },
];
/** Endpoints that address no resource: checked only for authentication. */
export const HTTP_TENANT_LEVEL: HttpEndpoint[] = [
  {
    name: 'create project',
    scope: ['projects', 'privacy'],
    levels: [],
    method: 'POST',
    path: () => '/api/v1/projects',
    body: () => ({ name: 'intruder', message_retention_days: 30 }),
  },
  { name: 'list projects', scope: null, levels: [], method: 'GET', path: () => '/api/v1/projects' },
  {
    name: 'create API key',
    scope: 'keys',
    levels: [],
    method: 'POST',
    path: () => '/api/v1/api-keys',
    body: () => ({ name: `made by the matrix ${TAG}`, scopes: ['keys'] }),
  },
  { name: 'list API keys', scope: 'keys', levels: [], method: 'GET', path: () => '/api/v1/api-keys' },
  { name: 'current API key', scope: null, levels: [], method: 'GET', path: () => '/api/v1/api-keys/current' },
  { name: 'list API key events', scope: 'keys', levels: [], method: 'GET', path: () => '/api/v1/api-keys/events' },
];

export interface GrpcEndpoint {
  name: string;
  scope: Needs;
  levels: Level[];
  invoke: (i: Ids, md: Metadata) => Promise<unknown>;
}

export function grpcEndpoints(c: ReturnType<typeof grpcClients>): {
  onResources: GrpcEndpoint[];
  tenantLevel: GrpcEndpoint[];
} {
  const sref = (i: Ids) => ({ projectId: i.project, pipelineId: i.pipeline, segmentId: i.segment });
  const lref = (i: Ids) => ({ projectId: i.project, name: i.label });
  const lab: Level[] = ['project', 'label'];
  const wref = (i: Ids) => ({ projectId: i.project, pipelineId: i.pipeline, webhookId: i.webhook });
  const seg: Level[] = ['project', 'pipeline', 'segment'];
  const wh: Level[] = ['project', 'pipeline', 'webhook'];
  return {
    onResources: [
      {
        name: 'RevokeApiKey',
        scope: 'keys',
        levels: ['key'],
        invoke: (i, md) => rpc(c.keys, 'revokeApiKey', { id: i.key }, md),
      },
      {
        name: 'CreateLabel',
        scope: 'labels:write',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(
            c.labels,
            'createLabel',
            { projectId: i.project, name: 'intruder', examples: labelExamples('intruder') },
            md,
          ),
      },
      {
        name: 'ListLabels',
        scope: 'labels:read',
        levels: ['project'],
        invoke: (i, md) => rpc(c.labels, 'listLabels', { projectId: i.project }, md),
      },
      {
        name: 'GetLabel',
        scope: 'labels:read',
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'getLabel', { ref: lref(i) }, md),
      },
      {
        name: 'UpdateLabel',
        scope: 'labels:write',
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'updateLabel', { ref: lref(i), examples: labelExamples('hijacked') }, md),
      },
      {
        name: 'AddLabelExamples',
        scope: 'labels:write',
        levels: lab,
        invoke: (i, md) =>
          rpc(
            c.labels,
            'addLabelExamples',
            { ref: lref(i), examples: [{ text: `intruder's extra ${TAG}`, match: true }] },
            md,
          ),
      },
      {
        name: 'ClassifyWithLabel',
        scope: 'labels:read',
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'classifyWithLabel', { ref: lref(i), texts: ['hello'] }, md),
      },
      {
        name: 'DeleteLabel',
        scope: 'labels:write',
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'deleteLabel', { ref: lref(i) }, md),
      },
      {
        name: 'IdentifyUsers',
        scope: 'ingest',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.users, 'identifyUsers', { projectId: i.project, users: [{ userId: 'intruder', text: 'hello' }] }, md),
      },
      {
        name: 'GetBatch',
        scope: 'ingest',
        levels: ['project', 'batch'],
        invoke: (i, md) => rpc(c.users, 'getBatch', { projectId: i.project, sourceId: i.batch }, md),
      },
      {
        name: 'ListProfiles',
        scope: 'profiles:read',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(
            c.profiles,
            'listProfiles',
            { projectId: i.project, sentimentTrend: SentimentTrend.SENTIMENT_TREND_UNSPECIFIED },
            md,
          ),
      },
      {
        name: 'GetProfile',
        scope: 'profiles:read',
        levels: ['project', 'user'],
        invoke: (i, md) => rpc(c.profiles, 'getProfile', { projectId: i.project, userId: i.user }, md),
      },
      {
        name: 'GetUserTimeline',
        scope: 'profiles:read',
        levels: ['project', 'user'],
        invoke: (i, md) => rpc(c.profiles, 'getUserTimeline', { projectId: i.project, userId: i.user }, md),
      },
      {
        name: 'DeleteProfile',
        scope: 'privacy',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.profiles, 'deleteProfile', { projectId: i.project, userId: B_USER, suppress: true }, md),
      },
      {
        name: 'GetErasure',
        scope: 'privacy',
        levels: ['erasure'],
        invoke: (i, md) => rpc(c.profiles, 'getErasure', { erasureId: i.erasure }, md),
      },
      {
        name: 'ListErasures',
        scope: 'privacy',
        levels: ['project'],
        invoke: (i, md) => rpc(c.profiles, 'listErasures', { projectId: i.project, kind: 'erasure' }, md),
      },
      {
        name: 'ListSuppressions',
        scope: 'privacy',
        levels: ['project'],
        invoke: (i, md) => rpc(c.profiles, 'listSuppressions', { projectId: i.project }, md),
      },
      {
        name: 'LiftSuppression',
        scope: 'privacy',
        levels: ['project', 'suppressed'],
        invoke: (i, md) => rpc(c.profiles, 'liftSuppression', { projectId: i.project, userId: i.suppressed }, md),
      },
      {
        name: 'GetProject',
        scope: null,
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'getProject', { projectId: i.project }, md),
      },
      {
        name: 'UpdateProject',
        scope: ['projects', 'privacy'],
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.projects, 'updateProject', { projectId: i.project, name: 'Hijacked', messageRetentionDays: 1 }, md),
      },
      {
        name: 'CreatePipeline',
        scope: 'projects',
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'createPipeline', { projectId: i.project, name: 'intruder' }, md),
      },
      {
        name: 'ListPipelines',
        scope: null,
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'listPipelines', { projectId: i.project }, md),
      },
      {
        name: 'CreateSegment',
        scope: 'segments:write',
        levels: ['project', 'pipeline'],
        invoke: (i, md) =>
          rpc(
            c.segments,
            'createSegment',
            {
              projectId: i.project,
              pipelineId: i.pipeline,
              name: 'Intruder',
              rule: { field: 'avg_sentiment', op: '<', value: 0 },
            },
            md,
          ),
      },
      {
        name: 'ListSegments',
        scope: 'segments:read',
        levels: ['project', 'pipeline'],
        invoke: (i, md) => rpc(c.segments, 'listSegments', { projectId: i.project, pipelineId: i.pipeline }, md),
      },
      {
        name: 'GetSegment',
        scope: 'segments:read',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'getSegment', { ref: sref(i) }, md),
      },
      {
        name: 'UpdateSegment',
        scope: 'segments:write',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'updateSegment', { ref: sref(i), name: 'Hijacked' }, md),
      },
      {
        name: 'DeploySegment',
        scope: 'segments:write',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'deploySegment', { ref: sref(i) }, md),
      },
      {
        name: 'UndeploySegment',
        scope: 'segments:write',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'undeploySegment', { ref: sref(i) }, md),
      },
      {
        name: 'DeleteSegment',
        scope: 'segments:write',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'deleteSegment', { ref: sref(i) }, md),
      },
      {
        name: 'ListSegmentUsers',
        scope: 'segments:read',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'listSegmentUsers', { ref: sref(i) }, md),
      },
      {
        name: 'CreateWebhook',
        scope: 'webhooks:write',
        levels: ['project', 'pipeline'],
        invoke: (i, md) =>
          rpc(
            c.webhooks,
            'createWebhook',
            {
              projectId: i.project,
              pipelineId: i.pipeline,
              segments: [],
              url: 'https://example.com/intruder',
              events: [],
            },
            md,
          ),
      },
      {
        name: 'ListWebhooks',
        scope: 'webhooks:read',
        levels: ['project', 'pipeline'],
        invoke: (i, md) => rpc(c.webhooks, 'listWebhooks', { projectId: i.project, pipelineId: i.pipeline }, md),
      },
      {
        name: 'GetWebhook',
        scope: 'webhooks:read',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'getWebhook', { ref: wref(i) }, md),
      },
      {
        name: 'UpdateWebhook',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) =>
          rpc(c.webhooks, 'updateWebhook', { ref: wref(i), isActive: false, url: 'https://example.com/hijacked' }, md),
      },
      {
        name: 'DeleteWebhook',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'deleteWebhook', { ref: wref(i) }, md),
      },
      {
        name: 'ListDeliveries',
        scope: 'webhooks:read',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'listDeliveries', { ref: wref(i) }, md),
      },
      {
        name: 'ResendDelivery',
        scope: 'webhooks:write',
        levels: [...wh, 'delivery'],
        invoke: (i, md) => rpc(c.webhooks, 'resendDelivery', { ref: wref(i), deliveryId: i.delivery }, md),
      },
      {
        name: 'RotateWebhookSecret',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'rotateWebhookSecret', { ref: wref(i), secret: 'hijacked-secret-123' }, md),
      },
      {
        name: 'EndSecretOverlap',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'endSecretOverlap', { ref: wref(i) }, md),
      },
      {
        name: 'RecoverWebhook',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) =>
          rpc(c.webhooks, 'recoverWebhook', { ref: wref(i), since: new Date('2026-01-01T00:00:00Z') }, md),
      },
      {
        name: 'SendTestEvent',
        scope: 'webhooks:write',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'sendTestEvent', { ref: wref(i) }, md),
      },
    ],
    tenantLevel: [
      {
        name: 'CreateProject',
        scope: ['projects', 'privacy'],
        levels: [],
        invoke: (_i, md) => rpc(c.projects, 'createProject', { name: 'intruder', messageRetentionDays: 30 }, md),
      },
      { name: 'ListProjects', scope: null, levels: [], invoke: (_i, md) => rpc(c.projects, 'listProjects', {}, md) },
      {
        name: 'CreateApiKey',
        scope: 'keys',
        levels: [],
        invoke: (_i, md) => rpc(c.keys, 'createApiKey', { name: `made by the matrix ${TAG}`, scopes: ['keys'] }, md),
      },
      { name: 'ListApiKeys', scope: 'keys', levels: [], invoke: (_i, md) => rpc(c.keys, 'listApiKeys', {}, md) },
      {
        name: 'GetCurrentApiKey',
        scope: null,
        levels: [],
        invoke: (_i, md) => rpc(c.keys, 'getCurrentApiKey', {}, md),
      },
      {
        name: 'ListApiKeyEvents',
        scope: 'keys',
        levels: [],
        invoke: (_i, md) => rpc(c.keys, 'listApiKeyEvents', {}, md),
      },
    ],
  };
}

/**
 * Every way of pointing at one of B's resources from A: the first `k` levels are A's own, the
 * rest B's (k = 0 is B's ids throughout). `missing` puts ids that exist nowhere in B's place.
 */
export function addressings(levels: Level[], a: Ids, b: Ids): { label: string; target: Ids; missing: Ids }[] {
  return levels.map((_, k) => {
    const target = { ...a };
    const missing = { ...a };
    levels.forEach((level, j) => {
      if (j < k) return;
      (target as Record<Level, unknown>)[level] = b[level];
      (missing as Record<Level, unknown>)[level] = MISSING[level];
    });
    return {
      label: k === 0 ? "B's ids" : `A's ${levels.slice(0, k).join('/')}, B's ${levels.slice(k).join('/')}`,
      target,
      missing,
    };
  });
}

/** Every method of the six services, by its proto name (`/profiling.v1.ProfilesService/GetProfile` → GetProfile). */
export const ALL_RPCS = [
  UsersServiceService,
  ProfilesServiceService,
  ProjectsServiceService,
  SegmentsServiceService,
  WebhooksServiceService,
  LabelsServiceService,
  KeysServiceService,
].flatMap((service) => Object.values(service).map((m) => m.path.split('/').pop()!));

/** The documented path template a request path falls under, literal segments preferred. */
export function templateOf(templates: string[], path: string): string | undefined {
  const segments = path.split('?')[0].split('/').filter(Boolean);
  let best: { template: string; literals: number } | undefined;
  for (const template of templates) {
    const parts = template.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    if (!parts.every((p, i) => p.startsWith('{') || p === segments[i])) continue;
    const literals = parts.filter((p) => !p.startsWith('{')).length;
    if (!best || literals > best.literals) best = { template, literals };
  }
  return best?.template;
}

export async function createTenant(name: string): Promise<{ key: string; tenantId: number }> {
  const t = await call('POST', '/admin/v1/tenants', {
    body: { name },
    headers: { 'X-Admin-Token': stack().adminToken },
  });
  expect(t.status).toBe(201);
  return { key: t.body.api_key, tenantId: t.body.tenant_id };
}

export interface Seeded {
  ids: Ids;
  key: string;
  secrets: string[];
}

/** A new tenant (its first key holds every scope) seeded by seedProject. */
export async function seedTenant(label: string, receiverUrl: string): Promise<Seeded> {
  const tb = await createTenant(`tenant-${label}-${TAG}`);
  return seedProject(tb.key, label, receiverUrl);
}

/**
 * A project of the key's tenant with one of everything the matrix addresses: a pipeline, a
 * deployed segment, a webhook with a delivery, an analysed user, an erased and suppressed user, a
 * batch, a ready label, and an API key limited to the project.
 */
export async function seedProject(key: string, label: string, receiverUrl: string): Promise<Seeded> {
  const project = await call('POST', '/api/v1/projects', { key, body: { name: `${label}-project-${TAG}` } });
  const pipeline = await call('POST', `/projects/${project.body.id}/pipelines`, {
    key,
    body: { name: `${label}-pipeline-${TAG}` },
  });
  const base = `/projects/${project.body.id}/pipelines/${pipeline.body.id}`;
  const hookUrl = `${receiverUrl}/${label}-hook-${TAG}`;
  const secret = `${label}-webhook-secret-${TAG}`;
  const webhook = await call('POST', `${base}/webhooks`, { key, body: { url: hookUrl, secret } });
  expect(webhook.status).toBe(201);
  const segment = await call('POST', `${base}/segments`, {
    key,
    body: {
      id: `${label}-segment-${TAG}`,
      name: `${label.toUpperCase()} Segment ${TAG}`,
      rule: { field: 'avg_sentiment', op: '<', value: 0 },
    },
  });
  expect(segment.status).toBe(201);
  expect((await call('POST', `${base}/segments/${label}-segment-${TAG}/deploy`, { key })).status).toBe(200);
  // A custom label, ready (classify needs a trained version).
  const labelName = `${label}-label-${TAG}`;
  const taught = await call('POST', `/api/v1/projects/${project.body.id}/labels`, {
    key,
    body: { name: labelName, examples: labelExamples(`${label}-secret`) },
  });
  expect(taught.status, JSON.stringify(taught.body)).toBe(202);
  await waitFor(
    `label ${labelName} ready`,
    async () =>
      (await call('GET', `/api/v1/projects/${project.body.id}/labels/${labelName}`, { key })).body.state === 'ready',
    120_000,
  );
  const userId = B_USER;
  const goneId = `${label}-gone-${TAG}`;
  const submitted = await call('POST', '/api/v1/users', {
    key,
    headers: { 'Idempotency-Key': `shared-key-${TAG}-${label}` },
    body: {
      project_id: project.body.id,
      users: [
        { user_id: userId, text: NEGATIVE, attributes: { plan: `${label}-plan-${TAG}` } },
        { user_id: goneId, text: NEGATIVE },
      ],
    },
  });
  expect(submitted.status).toBe(202);
  await waitForBatch(submitted.body.source_id);
  // A delivery of the user who stays (the erased user's go with it).
  const delivery = await waitFor(`a delivery to ${label}`, () =>
    withDb(async (db) => {
      const { rows } = await db.query(
        `SELECT d.id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
          WHERE e.project_id = $1 AND e.user_id = $2 ORDER BY d.id LIMIT 1`,
        [project.body.id, userId],
      );
      return rows[0] && Number(rows[0].id);
    }),
  );
  // The second user erased and its id suppressed: a real erasure id and a real suppression.
  const erased = await call('DELETE', `/api/v1/profiles/${goneId}?project_id=${project.body.id}&suppress=true`, {
    key,
  });
  expect(erased.status, JSON.stringify(erased.body)).toBe(202);
  expect(erased.body).toMatchObject({ suppressed: true, counts: { messages: 1, profiles: 1 } });
  const spare = await call('POST', '/api/v1/api-keys', {
    key,
    // `keys` only: any key that may revoke keys holds what this one holds.
    body: { name: `${label}-spare-key-${TAG}`, scopes: ['keys'], projects: [project.body.id] },
  });
  expect(spare.status, JSON.stringify(spare.body)).toBe(201);
  return {
    key,
    ids: {
      project: project.body.id,
      pipeline: pipeline.body.id,
      segment: `${label}-segment-${TAG}`,
      webhook: webhook.body.id,
      delivery,
      user: userId,
      erasure: erased.body.id,
      suppressed: goneId,
      batch: submitted.body.source_id,
      label: labelName,
      key: spare.body.id,
    },
    secrets: [
      `${label}-project-${TAG}`,
      `${label}-pipeline-${TAG}`,
      `${label}-segment-${TAG}`,
      `${label.toUpperCase()} Segment ${TAG}`,
      `${label}-hook-${TAG}`,
      secret,
      userId,
      goneId,
      erased.body.id,
      erased.body.user_id_hash,
      NEGATIVE,
      `${label}-plan-${TAG}`,
      labelName,
      `${label}-secret example 0 ${TAG}`,
      key,
      spare.body.api_key,
      `${label}-spare-key-${TAG}`,
    ],
  };
}

/**
 * The order the owner's controls run in, so each finds what it needs: reads, then writes, then
 * the webhook's deactivation (a test event needs it active), then the deletes.
 */
export function controlRank(name: string, method: string): number {
  if (/^update ?webhook$/i.test(name)) return 2;
  if (method === 'DELETE' || /^(delete|lift|erase)/i.test(name)) return 3;
  return method === 'GET' || /^(get|list)/i.test(name) ? 0 : 1;
}
