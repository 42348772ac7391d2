import { randomBytes } from 'node:crypto';
import { Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SentimentTrend } from '../../gen/profiling/v1/common.js';
import { ProfilesServiceService } from '../../gen/profiling/v1/profiles.js';
import { ProjectsServiceService } from '../../gen/profiling/v1/projects.js';
import { SegmentsServiceService } from '../../gen/profiling/v1/segments.js';
import { UsersServiceService } from '../../gen/profiling/v1/users.js';
import { WebhooksServiceService } from '../../gen/profiling/v1/webhooks.js';
import { LabelsServiceService } from '../../gen/profiling/v1/labels.js';
import { call, newTenant, stack, waitFor, waitForBatch, withDb, type Tenant } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';

/**
 * The isolation matrix: with tenant A's key, every gateway endpoint and every gRPC method is
 * called on tenant B's resources, addressed fully by B's ids and through A's own parents (A's
 * project with B's pipeline, A's pipeline with B's webhook, ...). Each answer must be 404 /
 * NOT_FOUND and identical to the answer for ids that do not exist, so it reveals nothing, not
 * even existence. Then every endpoint without a key, with a malformed, an unknown and a revoked
 * key: 401 / UNAUTHENTICATED.
 */

const TAG = randomBytes(4).toString('hex');
const NEGATIVE = `This is terrible, the app keeps crashing and I want to cancel my subscription (${TAG}).`;
/** B's analysed user: the one the matrix tries to erase with A's key, and must find intact afterwards. */
const B_USER = `b-user-${TAG}`;

/** The ids an endpoint addresses, outermost first. */
interface Ids {
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
}
type Level = keyof Ids;

const MISSING: Ids = {
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
};

/** 5 + 5 examples for the label routes' bodies, each text unique to `tag`. */
const labelExamples = (tag: string) =>
  Array.from({ length: 10 }, (_, i) => ({ text: `${tag} example ${i} ${TAG}`, match: i < 5 }));

interface HttpEndpoint {
  name: string;
  levels: Level[];
  method: string;
  path: (i: Ids) => string;
  body?: (i: Ids) => unknown;
}

const pl = (i: Ids) => `/projects/${i.project}/pipelines/${i.pipeline}`;
const lb = (i: Ids) => `/api/v1/projects/${i.project}/labels`;
const HTTP_ON_RESOURCES: HttpEndpoint[] = [
  {
    name: 'create label',
    levels: ['project'],
    method: 'POST',
    path: lb,
    body: () => ({ name: 'intruder', examples: labelExamples('intruder') }),
  },
  { name: 'list labels', levels: ['project'], method: 'GET', path: lb },
  { name: 'get label', levels: ['project', 'label'], method: 'GET', path: (i) => `${lb(i)}/${i.label}` },
  {
    name: 'update label',
    levels: ['project', 'label'],
    method: 'PUT',
    path: (i) => `${lb(i)}/${i.label}`,
    body: () => ({ examples: labelExamples('hijacked') }),
  },
  {
    name: 'add label examples',
    levels: ['project', 'label'],
    method: 'POST',
    path: (i) => `${lb(i)}/${i.label}/examples`,
    body: () => ({ examples: [{ text: `intruder's extra ${TAG}`, match: true }] }),
  },
  {
    name: 'classify with label',
    levels: ['project', 'label'],
    method: 'POST',
    path: (i) => `${lb(i)}/${i.label}/classify`,
    body: () => ({ texts: ['hello'] }),
  },
  { name: 'delete label', levels: ['project', 'label'], method: 'DELETE', path: (i) => `${lb(i)}/${i.label}` },
  {
    name: 'identify users',
    levels: ['project'],
    method: 'POST',
    path: () => '/api/v1/users',
    body: (i) => ({ project_id: i.project, users: [{ user_id: 'intruder', text: 'hello' }] }),
  },
  {
    name: 'get batch',
    levels: ['project', 'batch'],
    method: 'GET',
    path: (i) => `/api/v1/batches/${i.batch}?project_id=${i.project}`,
  },
  {
    name: 'list profiles',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/profiles?project_id=${i.project}`,
  },
  {
    name: 'get profile',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}?project_id=${i.project}`,
  },
  {
    name: 'get timeline',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}/timeline?project_id=${i.project}`,
  },
  {
    // Erasing an id the project never saw is a 202 with zero counts, so only the project is B's:
    // the user named is always B's own, the one erasing it would destroy.
    name: 'erase profile',
    levels: ['project'],
    method: 'DELETE',
    path: (i) => `/api/v1/profiles/${B_USER}?project_id=${i.project}&suppress=true`,
  },
  {
    name: 'export profile',
    levels: ['project', 'user'],
    method: 'GET',
    path: (i) => `/api/v1/profiles/${i.user}/export?project_id=${i.project}`,
  },
  { name: 'get erasure', levels: ['erasure'], method: 'GET', path: (i) => `/api/v1/erasures/${i.erasure}` },
  {
    name: 'list erasures',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/erasures?project_id=${i.project}&kind=erasure`,
  },
  {
    name: 'list suppressions',
    levels: ['project'],
    method: 'GET',
    path: (i) => `/api/v1/suppressions?project_id=${i.project}`,
  },
  {
    name: 'lift suppression',
    levels: ['project', 'suppressed'],
    method: 'DELETE',
    path: (i) => `/api/v1/suppressions/${i.suppressed}?project_id=${i.project}`,
  },
  { name: 'get project', levels: ['project'], method: 'GET', path: (i) => `/api/v1/projects/${i.project}` },
  {
    name: 'update project',
    levels: ['project'],
    method: 'PUT',
    path: (i) => `/api/v1/projects/${i.project}`,
    body: () => ({ name: 'Hijacked', message_retention_days: 1 }),
  },
  {
    name: 'create pipeline',
    levels: ['project'],
    method: 'POST',
    path: (i) => `/projects/${i.project}/pipelines`,
    body: () => ({ name: 'intruder' }),
  },
  { name: 'list pipelines', levels: ['project'], method: 'GET', path: (i) => `/projects/${i.project}/pipelines` },
  {
    name: 'create segment',
    levels: ['project', 'pipeline'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments`,
    body: () => ({ name: 'Intruder', rule: { field: 'avg_sentiment', op: '<', value: 0 } }),
  },
  { name: 'list segments', levels: ['project', 'pipeline'], method: 'GET', path: (i) => `${pl(i)}/segments` },
  {
    name: 'get segment',
    levels: ['project', 'pipeline', 'segment'],
    method: 'GET',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
  },
  {
    name: 'update segment',
    levels: ['project', 'pipeline', 'segment'],
    method: 'PUT',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
    body: () => ({ name: 'Hijacked' }),
  },
  {
    name: 'deploy segment',
    levels: ['project', 'pipeline', 'segment'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments/${i.segment}/deploy`,
  },
  {
    name: 'undeploy segment',
    levels: ['project', 'pipeline', 'segment'],
    method: 'POST',
    path: (i) => `${pl(i)}/segments/${i.segment}/undeploy`,
  },
  {
    name: 'delete segment',
    levels: ['project', 'pipeline', 'segment'],
    method: 'DELETE',
    path: (i) => `${pl(i)}/segments/${i.segment}`,
  },
  {
    name: 'segment users',
    levels: ['project', 'pipeline', 'segment'],
    method: 'GET',
    path: (i) => `${pl(i)}/segments/${i.segment}/users`,
  },
  {
    name: 'create webhook',
    levels: ['project', 'pipeline'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks`,
    body: () => ({ url: 'https://example.com/intruder' }),
  },
  { name: 'list webhooks', levels: ['project', 'pipeline'], method: 'GET', path: (i) => `${pl(i)}/webhooks` },
  {
    name: 'get webhook',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'GET',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
  },
  {
    name: 'update webhook',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'PUT',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
    body: () => ({ is_active: false, url: 'https://example.com/hijacked' }),
  },
  {
    name: 'delete webhook',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'DELETE',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}`,
  },
  {
    name: 'list deliveries',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'GET',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/deliveries`,
  },
  {
    name: 'resend delivery',
    levels: ['project', 'pipeline', 'webhook', 'delivery'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/deliveries/${i.delivery}/resend`,
  },
  {
    name: 'rotate webhook secret',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/rotate-secret`,
    body: () => ({ secret: 'hijacked-secret-123' }),
  },
  {
    name: 'end secret overlap',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/end-secret-overlap`,
  },
  {
    name: 'recover webhook',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/recover`,
    body: () => ({ since: '2026-01-01T00:00:00Z' }),
  },
  {
    name: 'send test event',
    levels: ['project', 'pipeline', 'webhook'],
    method: 'POST',
    path: (i) => `${pl(i)}/webhooks/${i.webhook}/test`,
  },
];
/** Endpoints that address no resource: checked only for authentication. */
const HTTP_TENANT_LEVEL: HttpEndpoint[] = [
  {
    name: 'create project',
    levels: [],
    method: 'POST',
    path: () => '/api/v1/projects',
    body: () => ({ name: 'intruder', message_retention_days: 30 }),
  },
  { name: 'list projects', levels: [], method: 'GET', path: () => '/api/v1/projects' },
];

interface GrpcEndpoint {
  name: string;
  levels: Level[];
  invoke: (i: Ids, md: Metadata) => Promise<unknown>;
}

function grpcEndpoints(c: ReturnType<typeof grpcClients>): {
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
        name: 'CreateLabel',
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
        levels: ['project'],
        invoke: (i, md) => rpc(c.labels, 'listLabels', { projectId: i.project }, md),
      },
      { name: 'GetLabel', levels: lab, invoke: (i, md) => rpc(c.labels, 'getLabel', { ref: lref(i) }, md) },
      {
        name: 'UpdateLabel',
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'updateLabel', { ref: lref(i), examples: labelExamples('hijacked') }, md),
      },
      {
        name: 'AddLabelExamples',
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
        levels: lab,
        invoke: (i, md) => rpc(c.labels, 'classifyWithLabel', { ref: lref(i), texts: ['hello'] }, md),
      },
      { name: 'DeleteLabel', levels: lab, invoke: (i, md) => rpc(c.labels, 'deleteLabel', { ref: lref(i) }, md) },
      {
        name: 'IdentifyUsers',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.users, 'identifyUsers', { projectId: i.project, users: [{ userId: 'intruder', text: 'hello' }] }, md),
      },
      {
        name: 'GetBatch',
        levels: ['project', 'batch'],
        invoke: (i, md) => rpc(c.users, 'getBatch', { projectId: i.project, sourceId: i.batch }, md),
      },
      {
        name: 'ListProfiles',
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
        levels: ['project', 'user'],
        invoke: (i, md) => rpc(c.profiles, 'getProfile', { projectId: i.project, userId: i.user }, md),
      },
      {
        name: 'GetUserTimeline',
        levels: ['project', 'user'],
        invoke: (i, md) => rpc(c.profiles, 'getUserTimeline', { projectId: i.project, userId: i.user }, md),
      },
      {
        name: 'DeleteProfile',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.profiles, 'deleteProfile', { projectId: i.project, userId: B_USER, suppress: true }, md),
      },
      {
        name: 'GetErasure',
        levels: ['erasure'],
        invoke: (i, md) => rpc(c.profiles, 'getErasure', { erasureId: i.erasure }, md),
      },
      {
        name: 'ListErasures',
        levels: ['project'],
        invoke: (i, md) => rpc(c.profiles, 'listErasures', { projectId: i.project, kind: 'erasure' }, md),
      },
      {
        name: 'ListSuppressions',
        levels: ['project'],
        invoke: (i, md) => rpc(c.profiles, 'listSuppressions', { projectId: i.project }, md),
      },
      {
        name: 'LiftSuppression',
        levels: ['project', 'suppressed'],
        invoke: (i, md) => rpc(c.profiles, 'liftSuppression', { projectId: i.project, userId: i.suppressed }, md),
      },
      {
        name: 'GetProject',
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'getProject', { projectId: i.project }, md),
      },
      {
        name: 'UpdateProject',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.projects, 'updateProject', { projectId: i.project, name: 'Hijacked', messageRetentionDays: 1 }, md),
      },
      {
        name: 'CreatePipeline',
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'createPipeline', { projectId: i.project, name: 'intruder' }, md),
      },
      {
        name: 'ListPipelines',
        levels: ['project'],
        invoke: (i, md) => rpc(c.projects, 'listPipelines', { projectId: i.project }, md),
      },
      {
        name: 'CreateSegment',
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
        levels: ['project', 'pipeline'],
        invoke: (i, md) => rpc(c.segments, 'listSegments', { projectId: i.project, pipelineId: i.pipeline }, md),
      },
      { name: 'GetSegment', levels: seg, invoke: (i, md) => rpc(c.segments, 'getSegment', { ref: sref(i) }, md) },
      {
        name: 'UpdateSegment',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'updateSegment', { ref: sref(i), name: 'Hijacked' }, md),
      },
      { name: 'DeploySegment', levels: seg, invoke: (i, md) => rpc(c.segments, 'deploySegment', { ref: sref(i) }, md) },
      {
        name: 'UndeploySegment',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'undeploySegment', { ref: sref(i) }, md),
      },
      { name: 'DeleteSegment', levels: seg, invoke: (i, md) => rpc(c.segments, 'deleteSegment', { ref: sref(i) }, md) },
      {
        name: 'ListSegmentUsers',
        levels: seg,
        invoke: (i, md) => rpc(c.segments, 'listSegmentUsers', { ref: sref(i) }, md),
      },
      {
        name: 'CreateWebhook',
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
        levels: ['project', 'pipeline'],
        invoke: (i, md) => rpc(c.webhooks, 'listWebhooks', { projectId: i.project, pipelineId: i.pipeline }, md),
      },
      { name: 'GetWebhook', levels: wh, invoke: (i, md) => rpc(c.webhooks, 'getWebhook', { ref: wref(i) }, md) },
      {
        name: 'UpdateWebhook',
        levels: wh,
        invoke: (i, md) =>
          rpc(c.webhooks, 'updateWebhook', { ref: wref(i), isActive: false, url: 'https://example.com/hijacked' }, md),
      },
      { name: 'DeleteWebhook', levels: wh, invoke: (i, md) => rpc(c.webhooks, 'deleteWebhook', { ref: wref(i) }, md) },
      {
        name: 'ListDeliveries',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'listDeliveries', { ref: wref(i) }, md),
      },
      {
        name: 'ResendDelivery',
        levels: [...wh, 'delivery'],
        invoke: (i, md) => rpc(c.webhooks, 'resendDelivery', { ref: wref(i), deliveryId: i.delivery }, md),
      },
      {
        name: 'RotateWebhookSecret',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'rotateWebhookSecret', { ref: wref(i), secret: 'hijacked-secret-123' }, md),
      },
      {
        name: 'EndSecretOverlap',
        levels: wh,
        invoke: (i, md) => rpc(c.webhooks, 'endSecretOverlap', { ref: wref(i) }, md),
      },
      {
        name: 'RecoverWebhook',
        levels: wh,
        invoke: (i, md) =>
          rpc(c.webhooks, 'recoverWebhook', { ref: wref(i), since: new Date('2026-01-01T00:00:00Z') }, md),
      },
      { name: 'SendTestEvent', levels: wh, invoke: (i, md) => rpc(c.webhooks, 'sendTestEvent', { ref: wref(i) }, md) },
    ],
    tenantLevel: [
      {
        name: 'CreateProject',
        levels: [],
        invoke: (_i, md) => rpc(c.projects, 'createProject', { name: 'intruder', messageRetentionDays: 30 }, md),
      },
      { name: 'ListProjects', levels: [], invoke: (_i, md) => rpc(c.projects, 'listProjects', {}, md) },
    ],
  };
}

/**
 * Every way of pointing at one of B's resources from A: the first `k` levels are A's own, the
 * rest B's (k = 0 is B's ids throughout). `missing` puts ids that exist nowhere in B's place.
 */
function addressings(levels: Level[], a: Ids, b: Ids): { label: string; target: Ids; missing: Ids }[] {
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
const ALL_RPCS = [
  UsersServiceService,
  ProfilesServiceService,
  ProjectsServiceService,
  SegmentsServiceService,
  WebhooksServiceService,
  LabelsServiceService,
].flatMap((service) => Object.values(service).map((m) => m.path.split('/').pop()!));

/** The documented path template a request path falls under, literal segments preferred. */
function templateOf(templates: string[], path: string): string | undefined {
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

async function createTenant(name: string): Promise<{ key: string; tenantId: number }> {
  const t = await call('POST', '/admin/v1/tenants', {
    body: { name },
    headers: { 'X-Admin-Token': stack().adminToken },
  });
  expect(t.status).toBe(201);
  return { key: t.body.api_key, tenantId: t.body.tenant_id };
}

/**
 * A tenant with one of everything the matrix addresses: a project, a pipeline, a deployed segment,
 * a webhook with a delivery, an analysed user, an erased and suppressed user, a batch.
 */
async function seedTenant(label: string, receiverUrl: string): Promise<{ ids: Ids; key: string; secrets: string[] }> {
  const tb = await createTenant(`tenant-${label}-${TAG}`);
  const key = tb.key;
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
    headers: { 'Idempotency-Key': `shared-key-${TAG}` },
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
    ],
  };
}

/**
 * The order the owner's controls run in, so each finds what it needs: reads, then writes, then
 * the webhook's deactivation (a test event needs it active), then the deletes.
 */
function controlRank(name: string, method: string): number {
  if (/^update ?webhook$/i.test(name)) return 2;
  if (method === 'DELETE' || /^(delete|lift|erase)/i.test(name)) return 3;
  return method === 'GET' || /^(get|list)/i.test(name) ? 0 : 1;
}

describe('tenant isolation matrix', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: Ids;
  let b: Ids;
  let aKey: string;
  let bKey: string;
  let bSecrets: string[];
  let revokedKey: string;
  let revokedTenant: Tenant;
  const counts = {
    http404: 0,
    grpcNotFound: 0,
    ownListings: 0,
    http401: 0,
    grpcUnauthenticated: 0,
    httpOwner: 0,
    grpcOwner: 0,
  };
  const clients = grpcClients();
  const grpc = grpcEndpoints(clients);

  beforeAll(async () => {
    receiver = await startReceiver();
    const seeded = await seedTenant('b', receiver.url);
    ({ ids: b, key: bKey, secrets: bSecrets } = seeded);

    // A: its own project, pipeline and webhook, so B's ids can be reached through A's parents.
    const ta = await newTenant(`tenant-a-${TAG}`);
    aKey = ta.key;
    const aWebhook = await call('POST', `/projects/${ta.projectId}/pipelines/${ta.pipelineId}/webhooks`, {
      key: aKey,
      body: { url: 'https://example.com/a-hook' },
    });
    a = {
      project: ta.projectId,
      pipeline: ta.pipelineId,
      segment: 'a-has-none',
      webhook: aWebhook.body.id,
      delivery: MISSING.delivery,
      user: 'a-has-none',
      erasure: MISSING.erasure,
      suppressed: 'a-has-none',
      batch: MISSING.batch,
      label: 'a-has-none',
    };

    // C: a tenant whose key is revoked through the admin endpoint.
    revokedTenant = await newTenant(`tenant-c-${TAG}`);
    revokedKey = revokedTenant.key;
  });

  afterAll(async () => {
    await receiver?.close();
    for (const c of Object.values(clients)) c.close();
    const total = Object.values(counts).reduce((s, n) => s + n, 0);
    console.log(`isolation cases checked: ${total} ${JSON.stringify(counts)}`);
  });

  const noDataOfB = (what: string, text: string) => {
    for (const s of bSecrets) expect(text, `${what} leaks "${s}"`).not.toContain(s);
  };

  it('holds every route the document serves to an API key, and every gRPC method, in the matrix', async () => {
    const doc = await call('GET', '/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, { security?: unknown }>>;
    const documented = Object.entries(paths)
      .flatMap(([path, item]) =>
        Object.entries(item)
          .filter(([, op]) => JSON.stringify(op.security) === JSON.stringify([{ apiKey: [] }]))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    const inMatrix = [...HTTP_TENANT_LEVEL, ...HTTP_ON_RESOURCES]
      .map((ep) => `${ep.method} ${templateOf(Object.keys(paths), ep.path(MISSING))}`)
      .sort();
    expect(inMatrix).toEqual(documented);
    // Named, so an empty document cannot pass.
    expect(documented).toEqual(
      expect.arrayContaining([
        'POST /api/v1/users',
        'DELETE /api/v1/profiles/{user_id}',
        'GET /api/v1/erasures/{erasure_id}',
        'PUT /api/v1/projects/{project_id}',
      ]),
    );
    const grpcNames = [...grpc.tenantLevel, ...grpc.onResources].map((ep) => ep.name).sort();
    expect(grpcNames).toEqual([...ALL_RPCS].sort());
    expect(grpcNames).toEqual(expect.arrayContaining(['DeleteProfile', 'GetErasure', 'UpdateProject']));
  });

  it("answers 404 on every gateway endpoint for B's resources, exactly as for missing ones", async () => {
    for (const ep of HTTP_ON_RESOURCES) {
      for (const { label, target, missing } of addressings(ep.levels, a, b)) {
        const what = `${ep.method} ${ep.name} (${label})`;
        const got = await call(ep.method, ep.path(target), { key: aKey, body: ep.body?.(target) });
        const none = await call(ep.method, ep.path(missing), { key: aKey, body: ep.body?.(missing) });
        expect(got.status, `${what}: ${JSON.stringify(got.body)}`).toBe(404);
        expect(got.body.error.code, what).toBe('not_found');
        expect(got.body, what).toEqual(none.body);
        noDataOfB(what, JSON.stringify(got.body));
        counts.http404++;
      }
    }
  });

  it("answers NOT_FOUND on every gRPC method for B's resources, exactly as for missing ones", async () => {
    const md = keyMetadata(aKey);
    for (const ep of grpc.onResources) {
      for (const { label, target, missing } of addressings(ep.levels, a, b)) {
        const what = `${ep.name} (${label})`;
        const got = await ep.invoke(target, md).then(
          (r) => ({ code: status.OK, details: JSON.stringify(r) }),
          (e) => e,
        );
        const none = await ep.invoke(missing, md).then(
          (r) => ({ code: status.OK, details: JSON.stringify(r) }),
          (e) => e,
        );
        expect(got.code, `${what}: ${got.details}`).toBe(status.NOT_FOUND);
        expect(got.details, what).toBe(none.details);
        noDataOfB(what, `${got.details} ${JSON.stringify(got.metadata?.getMap())}`);
        counts.grpcNotFound++;
      }
    }
  });

  it("shows none of B's data in A's own listings, nor B's idempotent answer", async () => {
    const base = `/projects/${a.project}/pipelines/${a.pipeline}`;
    for (const path of [
      '/api/v1/projects',
      `/projects/${a.project}/pipelines`,
      `/api/v1/profiles?project_id=${a.project}`,
      `/api/v1/projects/${a.project}`,
      `/api/v1/erasures?project_id=${a.project}`,
      `/api/v1/suppressions?project_id=${a.project}`,
      `${base}/segments`,
      `${base}/webhooks`,
    ]) {
      const res = await call('GET', path, { key: aKey });
      expect(res.status, path).toBe(200);
      noDataOfB(path, JSON.stringify(res.body));
      counts.ownListings++;
    }
    const md = keyMetadata(aKey);
    const projects = await rpc(clients.projects, 'listProjects', {}, md);
    expect(projects.projects.map((p) => p.id)).toEqual([a.project]);
    counts.ownListings++;
    // The same Idempotency-Key as B's submission is A's own key space: no replay of B's answer.
    const twin = await call('POST', '/api/v1/users', {
      key: aKey,
      headers: { 'Idempotency-Key': `shared-key-${TAG}` },
      body: { project_id: a.project, users: [{ user_id: 'a-user', text: 'Fine.' }] },
    });
    expect(twin.status).toBe(202);
    expect(twin.body.accepted).toBe(1);
    noDataOfB('idempotent twin', JSON.stringify(twin.body));
    await waitForBatch(twin.body.source_id);
    counts.ownListings++;
  });

  it("left B's resources untouched", async () => {
    const base = `/projects/${b.project}/pipelines/${b.pipeline}`;
    const pipelines = await call('GET', `/projects/${b.project}/pipelines`, { key: bKey });
    expect(pipelines.body.pipelines.map((p: { id: number }) => p.id)).toEqual([b.pipeline]);
    const segments = await call('GET', `${base}/segments`, { key: bKey });
    expect(segments.body.segments).toEqual([
      expect.objectContaining({ id: b.segment, name: `B Segment ${TAG}`, status: 'deployed' }),
    ]);
    const webhooks = await call('GET', `${base}/webhooks`, { key: bKey });
    expect(webhooks.body).toEqual([
      expect.objectContaining({ id: b.webhook, is_active: true, url: expect.stringContaining(`b-hook-${TAG}`) }),
    ]);
    const members = await call('GET', `${base}/segments/${b.segment}/users`, { key: bKey });
    expect(members.body.users.map((u: { user_id: string }) => u.user_id)).toEqual([b.user]);
    const profiles = await call('GET', `/api/v1/profiles?project_id=${b.project}`, { key: bKey });
    expect(profiles.body.users.map((u: { user_id: string }) => u.user_id)).toEqual([b.user]);
    const batch = await call('GET', `/api/v1/batches/${b.batch}?project_id=${b.project}`, { key: bKey });
    expect(batch.body).toMatchObject({ source_id: b.batch, status: 'completed', accepted: 2, processed: 2, erased: 1 });
    // A's erasures, retention change and lifts reached none of B's settings, audit trail or suppressions.
    const project = await call('GET', `/api/v1/projects/${b.project}`, { key: bKey });
    expect(project.body).toMatchObject({ id: b.project, name: `b-project-${TAG}`, message_retention_days: null });
    const erasures = await call('GET', `/api/v1/erasures?project_id=${b.project}`, { key: bKey });
    expect(erasures.body.erasures.map((e: { id: string }) => e.id)).toEqual([b.erasure]);
    const suppressions = await call('GET', `/api/v1/suppressions?project_id=${b.project}`, { key: bKey });
    expect(suppressions.body.suppressions).toEqual([expect.objectContaining({ erasure_id: b.erasure })]);
  });

  it('revokes a key through the admin endpoint', async () => {
    expect((await call('GET', '/api/v1/projects', { key: revokedKey })).status).toBe(200);
    const anonymous = await call('POST', '/admin/v1/api-keys/revoke', { body: { api_key: revokedKey } });
    expect(anonymous.status).toBe(401);
    const revoke = await call('POST', '/admin/v1/api-keys/revoke', {
      body: { api_key: revokedKey },
      headers: { 'X-Admin-Token': stack().adminToken },
    });
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({
      tenant_id: expect.any(Number),
      prefix: revokedKey.slice(0, 8),
      revoked_at: expect.stringMatching(/Z$/),
    });
    noDataOfB('revoke', JSON.stringify(revoke.body));
    const again = await call('POST', '/admin/v1/api-keys/revoke', {
      body: { api_key: revokedKey },
      headers: { 'X-Admin-Token': stack().adminToken },
    });
    expect(again.status).toBe(404);
    expect((await call('GET', '/api/v1/projects', { key: revokedKey })).status).toBe(401);
  });

  it('answers 401 / UNAUTHENTICATED everywhere without a key, with a malformed, an unknown or a revoked key', async () => {
    // The revoked key is tried on its own tenant's resources: it would be served if it still worked.
    const own: Ids = { ...b, project: revokedTenant.projectId, pipeline: revokedTenant.pipelineId };
    const credentials: { name: string; key?: string; ids: Ids }[] = [
      { name: 'no key', ids: b },
      { name: 'malformed key', key: 'not-an-api-key', ids: b },
      { name: 'unknown key', key: `sps_${randomBytes(32).toString('base64url')}`, ids: b },
      { name: 'revoked key', key: revokedKey, ids: own },
    ];
    for (const cred of credentials) {
      for (const ep of [...HTTP_TENANT_LEVEL, ...HTTP_ON_RESOURCES]) {
        const what = `${ep.method} ${ep.name} with ${cred.name}`;
        const res = await call(ep.method, ep.path(cred.ids), { key: cred.key, body: ep.body?.(cred.ids) });
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(401);
        expect(res.body.error.code, what).toBe('unauthenticated');
        noDataOfB(what, JSON.stringify(res.body));
        counts.http401++;
      }
      const md = cred.key ? keyMetadata(cred.key) : new Metadata();
      for (const ep of [...grpc.tenantLevel, ...grpc.onResources]) {
        const what = `${ep.name} with ${cred.name}`;
        const err = await ep.invoke(cred.ids, md).then(
          (r) => ({ code: status.OK, details: JSON.stringify(r) }),
          (e) => e,
        );
        expect(err.code, `${what}: ${err.details}`).toBe(status.UNAUTHENTICATED);
        noDataOfB(what, err.details);
        counts.grpcUnauthenticated++;
      }
    }
  });

  // A 404 to A means something only if the owner's identical request is served: else the request
  // could never succeed, and the matrix would pass on a typo. Each transport's controls run on a
  // tenant seeded like B (they create, change and delete), in controlRank order.
  it('serves each of those requests to the owner of the resources, over HTTP', async () => {
    const owner = await seedTenant('d', receiver.url);
    const eps = [...HTTP_TENANT_LEVEL, ...HTTP_ON_RESOURCES].sort(
      (x, y) => controlRank(x.name, x.method) - controlRank(y.name, y.method),
    );
    for (const ep of eps) {
      const res = await call(ep.method, ep.path(owner.ids), { key: owner.key, body: ep.body?.(owner.ids) });
      expect(res.status, `${ep.method} ${ep.name}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      counts.httpOwner++;
    }
    expect(counts.httpOwner).toBe(HTTP_TENANT_LEVEL.length + HTTP_ON_RESOURCES.length);
  });

  it('serves each of those calls to the owner of the resources, over gRPC', async () => {
    const owner = await seedTenant('e', receiver.url);
    const md = keyMetadata(owner.key);
    const eps = [...grpc.tenantLevel, ...grpc.onResources].sort(
      (x, y) => controlRank(x.name, 'POST') - controlRank(y.name, 'POST'),
    );
    for (const ep of eps) {
      await ep.invoke(owner.ids, md).catch((err: Error) => {
        throw new Error(`${ep.name} refused to its owner: ${err.message}`);
      });
      counts.grpcOwner++;
    }
    expect(counts.grpcOwner).toBe(ALL_RPCS.length);
  });
});
