import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { credentials, loadPackageDefinition, status } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { call, newTenant, stack } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';

const HEALTH_PROTO = path.join(
  path.dirname(createRequire(import.meta.url).resolve('grpc-health-check/package.json')),
  'proto/health/v1/health.proto',
);

describe('foundation: gateway, auth, projects, gRPC', () => {
  it('answers liveness and readiness with PostgreSQL and Temporal reachable', async () => {
    expect((await call('GET', '/healthz')).status).toBe(200);
    const ready = await call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ database: true, temporal: true });
  });

  it('creates tenants only with the admin token', async () => {
    const none = await call('POST', '/admin/v1/tenants', { body: { name: 'x' } });
    expect(none.status).toBe(401);
    const wrong = await call('POST', '/admin/v1/tenants', {
      body: { name: 'x' },
      headers: { 'X-Admin-Token': 'nope' },
    });
    expect(wrong.status).toBe(401);
    const ok = await call('POST', '/admin/v1/tenants', {
      body: { name: 'x' },
      headers: { 'X-Admin-Token': stack().adminToken },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.api_key).toMatch(/^sps_/);
    expect(typeof ok.body.tenant_id).toBe('number');
  });

  it('stores API keys only as hashes', async () => {
    const t = await newTenant();
    const { withDb } = await import('../support/api.js');
    const rows = await withDb(async (db) => (await db.query('SELECT key_hash, prefix FROM api_keys')).rows);
    expect(rows.some((r) => r.key_hash === t.key)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash))).toBe(true);
  });

  it('requires a valid API key (401) and answers JSON errors', async () => {
    const none = await call('GET', '/api/v1/projects');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthenticated');
    const bad = await call('GET', '/api/v1/projects', { key: 'sps_' + 'A'.repeat(43) });
    expect(bad.status).toBe(401);
    const malformed = await call('GET', '/api/v1/projects', { key: 'hello' });
    expect(malformed.status).toBe(401);
  });

  it('creates and lists projects and pipelines inside the tenant only', async () => {
    const a = await newTenant('a');
    const b = await newTenant('b');
    const projects = await call('GET', '/api/v1/projects', { key: a.key });
    expect(projects.status).toBe(200);
    expect(projects.body.projects.map((p: any) => p.id)).toEqual([a.projectId]);
    expect(projects.body.projects[0].created_at).toMatch(/Z$/);
    const pipelines = await call('GET', `/projects/${a.projectId}/pipelines`, { key: a.key });
    expect(pipelines.body.pipelines).toEqual([
      expect.objectContaining({ id: a.pipelineId, project_id: a.projectId, name: 'main' }),
    ]);
    // B's project is answered exactly like a missing one.
    const foreign = await call('GET', `/projects/${b.projectId}/pipelines`, { key: a.key });
    const missing = await call('GET', `/projects/999999999/pipelines`, { key: a.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const create = await call('POST', `/projects/${b.projectId}/pipelines`, { key: a.key, body: { name: 'evil' } });
    expect(create.status).toBe(404);
  });

  it('rejects malformed JSON and bad fields with 400 naming the field', async () => {
    const t = await newTenant();
    const malformed = await call('POST', '/api/v1/projects', {
      key: t.key,
      raw: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_argument');
    const noName = await call('POST', '/api/v1/projects', { key: t.key, body: { name: '' } });
    expect(noName.status).toBe(400);
    expect(noName.body.error.field).toBe('name');
    const badId = await call('GET', '/projects/abc/pipelines', { key: t.key });
    expect(badId.status).toBe(400);
    expect(badId.body.error.field).toBe('project_id');
  });

  it('serves the same projects over gRPC with the generated client', async () => {
    const t = await newTenant();
    const { projects } = grpcClients();
    const res = await rpc(projects, 'listProjects', {}, keyMetadata(t.key));
    expect(res.projects.map((p) => p.id)).toEqual([t.projectId]);
    expect(res.projects[0].createdAt).toBeInstanceOf(Date);
    const err = await rpc(projects, 'listProjects', {}, keyMetadata('sps_wrong')).catch((e) => e);
    expect(err.code).toBe(status.UNAUTHENTICATED);
    const notFound = await rpc(projects, 'listPipelines', { projectId: 999999999 }, keyMetadata(t.key)).catch((e) => e);
    expect(notFound.code).toBe(status.NOT_FOUND);
  });

  it('exposes gRPC health and server reflection (buf curl needs no proto files)', () => {
    const addr = `http://${stack().grpcAddress}`;
    const list = bufCurl(['--list-methods', addr]);
    for (const svc of [
      'UsersService/IdentifyUsers',
      'ProfilesService/ListProfiles',
      'WebhooksService/CreateWebhook',
      'ProjectsService/ListProjects',
      'SegmentsService/DeploySegment',
    ]) {
      expect(list).toContain(`profiling.v1.${svc}`);
    }
  });

  it('answers the standard gRPC health check', async () => {
    const def = await protoLoader.load(HEALTH_PROTO, { keepCase: true, enums: String });
    const Health = (loadPackageDefinition(def) as any).grpc.health.v1.Health;
    const client = new Health(stack().grpcAddress, credentials.createInsecure());
    const res: any = await new Promise((resolve, reject) =>
      client.Check({ service: 'profiling.v1.UsersService' }, (err: Error | null, r: unknown) =>
        err ? reject(err) : resolve(r),
      ),
    );
    expect(res.status).toBe('SERVING');
    client.close();
  });
});

function bufCurl(args: string[]): string {
  return execFileSync('npx', ['buf', 'curl', '--protocol', 'grpc', '--http2-prior-knowledge', ...args], {
    encoding: 'utf8',
  });
}
