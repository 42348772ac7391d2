import { randomBytes } from 'node:crypto';
import { Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitForBatch, type Tenant } from '../support/api.js';
import {
  ALL_RPCS,
  addressings,
  controlRank,
  grpcEndpoints,
  HTTP_ON_RESOURCES,
  HTTP_TENANT_LEVEL,
  MISSING,
  seedTenant,
  TAG,
  templateOf,
  type Ids,
} from '../support/endpoint-matrix.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';

/**
 * The isolation matrix: with tenant A's key, every gateway endpoint and every gRPC method is
 * called on tenant B's resources, addressed fully by B's ids and through A's own parents (A's
 * project with B's pipeline, A's pipeline with B's webhook, ...). Each answer must be 404 /
 * NOT_FOUND and identical to the answer for ids that do not exist, so it reveals nothing, not
 * even existence. Then every endpoint without a key, with a malformed, an unknown and a revoked
 * key: 401 / UNAUTHENTICATED. The operations and their ids: test/support/endpoint-matrix.ts.
 */

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
      key: MISSING.key,
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
          .filter(([, op]) => JSON.stringify(op.security ?? []).includes('"apiKey"'))
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
      '/api/v1/api-keys',
      '/api/v1/api-keys/events',
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
      headers: { 'Idempotency-Key': `shared-key-${TAG}-b` },
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
