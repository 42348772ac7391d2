import { randomBytes } from 'node:crypto';
import { Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SentimentTrend } from '../../gen/profiling/v1/common.js';
import { call, newTenant, stack, waitFor, waitForBatch, type Tenant } from '../support/api.js';
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

/** The ids an endpoint addresses, outermost first. */
interface Ids {
  project: number;
  pipeline: number;
  segment: string;
  webhook: number;
  delivery: number;
  user: string;
}
type Level = keyof Ids;

const MISSING: Ids = {
  project: 999_999_901,
  pipeline: 999_999_902,
  segment: 'no-such-segment',
  webhook: 999_999_903,
  delivery: 999_999_904,
  user: 'no-such-user',
};

interface HttpEndpoint {
  name: string;
  levels: Level[];
  method: string;
  path: (i: Ids) => string;
  body?: (i: Ids) => unknown;
}

const pl = (i: Ids) => `/projects/${i.project}/pipelines/${i.pipeline}`;
const HTTP_ON_RESOURCES: HttpEndpoint[] = [
  {
    name: 'identify users',
    levels: ['project'],
    method: 'POST',
    path: () => '/api/v1/users',
    body: (i) => ({ project_id: i.project, users: [{ user_id: 'intruder', text: 'hello' }] }),
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
    body: () => ({ name: 'intruder' }),
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
  const wref = (i: Ids) => ({ projectId: i.project, pipelineId: i.pipeline, webhookId: i.webhook });
  const seg: Level[] = ['project', 'pipeline', 'segment'];
  const wh: Level[] = ['project', 'pipeline', 'webhook'];
  return {
    onResources: [
      {
        name: 'IdentifyUsers',
        levels: ['project'],
        invoke: (i, md) =>
          rpc(c.users, 'identifyUsers', { projectId: i.project, users: [{ userId: 'intruder', text: 'hello' }] }, md),
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
        invoke: (_i, md) => rpc(c.projects, 'createProject', { name: 'intruder' }, md),
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

async function createTenant(name: string): Promise<{ key: string; tenantId: number }> {
  const t = await call('POST', '/admin/v1/tenants', {
    body: { name },
    headers: { 'X-Admin-Token': stack().adminToken },
  });
  expect(t.status).toBe(201);
  return { key: t.body.api_key, tenantId: t.body.tenant_id };
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
  const counts = { http404: 0, grpcNotFound: 0, ownListings: 0, http401: 0, grpcUnauthenticated: 0 };
  const clients = grpcClients();
  const grpc = grpcEndpoints(clients);

  beforeAll(async () => {
    receiver = await startReceiver();
    // B: a project, a pipeline, a deployed segment, a webhook with a delivery, an analysed user.
    const tb = await createTenant(`tenant-b-${TAG}`);
    bKey = tb.key;
    const project = await call('POST', '/api/v1/projects', { key: bKey, body: { name: `b-project-${TAG}` } });
    const pipeline = await call('POST', `/projects/${project.body.id}/pipelines`, {
      key: bKey,
      body: { name: `b-pipeline-${TAG}` },
    });
    const base = `/projects/${project.body.id}/pipelines/${pipeline.body.id}`;
    const hookUrl = `${receiver.url}/b-hook-${TAG}`;
    const secret = `b-webhook-secret-${TAG}`;
    const webhook = await call('POST', `${base}/webhooks`, { key: bKey, body: { url: hookUrl, secret } });
    expect(webhook.status).toBe(201);
    const segment = await call('POST', `${base}/segments`, {
      key: bKey,
      body: { id: `b-segment-${TAG}`, name: `B Segment ${TAG}`, rule: { field: 'avg_sentiment', op: '<', value: 0 } },
    });
    expect(segment.status).toBe(201);
    expect((await call('POST', `${base}/segments/b-segment-${TAG}/deploy`, { key: bKey })).status).toBe(200);
    const userId = `b-user-${TAG}`;
    const submitted = await call('POST', '/api/v1/users', {
      key: bKey,
      headers: { 'Idempotency-Key': `shared-key-${TAG}` },
      body: {
        project_id: project.body.id,
        users: [{ user_id: userId, text: NEGATIVE, attributes: { plan: `b-plan-${TAG}` } }],
      },
    });
    expect(submitted.status).toBe(202);
    await waitForBatch(submitted.body.source_id);
    const deliveries = await waitFor('a delivery to B', async () => {
      const r = await call('GET', `${base}/webhooks/${webhook.body.id}/deliveries`, { key: bKey });
      return r.body.length > 0 && r.body;
    });
    b = {
      project: project.body.id,
      pipeline: pipeline.body.id,
      segment: `b-segment-${TAG}`,
      webhook: webhook.body.id,
      delivery: deliveries[0].id,
      user: userId,
    };
    bSecrets = [
      `b-project-${TAG}`,
      `b-pipeline-${TAG}`,
      `b-segment-${TAG}`,
      `B Segment ${TAG}`,
      `b-hook-${TAG}`,
      secret,
      userId,
      NEGATIVE,
      `b-plan-${TAG}`,
      bKey,
    ];

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
});
