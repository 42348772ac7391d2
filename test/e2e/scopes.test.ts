import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, withDb } from '../support/api.js';
import {
  addressings,
  controlRank,
  grpcEndpoints,
  HTTP_ON_RESOURCES,
  HTTP_TENANT_LEVEL,
  seedProject,
  seedTenant,
  TAG,
  templateOf,
  type GrpcEndpoint,
  type HttpEndpoint,
  type Needs,
  type Seeded,
} from '../support/endpoint-matrix.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';

/**
 * The scope matrix (issue 48): a tenant's keys of one scope each call every gateway route and
 * every gRPC method (test/support/endpoint-matrix.ts, where each operation's scope is written as
 * docs/api.md states it): a key without the scope is answered 403 / PERMISSION_DENIED naming a
 * scope it lacks, a key with it is not. A key limited to one project meets everything of the
 * tenant's other project as if it did not exist (404 / NOT_FOUND, identical to missing ids). A key
 * never makes or revokes a key wider than itself.
 */

/** The scopes docs/api.md lists, reads first (the write keys change and delete what the reads read). */
const SCOPES = [
  'ingest',
  'profiles:read',
  'segments:read',
  'webhooks:read',
  'labels:read',
  'keys',
  'projects',
  'segments:write',
  'webhooks:write',
  'labels:write',
  'privacy',
];
/** A write scope holds its read. */
const WIDER: Record<string, string> = {
  'segments:read': 'segments:write',
  'webhooks:read': 'webhooks:write',
  'labels:read': 'labels:write',
};
const needed = (needs: Needs): string[] => (needs === null ? [] : [needs].flat());
const holds = (held: string[], needs: Needs) =>
  needed(needs).every((n) => held.includes(n) || (WIDER[n] !== undefined && held.includes(WIDER[n])));
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('API key scopes', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The tenant's first key and its first project, seeded. */
  let owner: Seeded;
  /** A second project of the same tenant, seeded. */
  let other: Seeded;
  const keyOf: Record<string, string> = {};
  const clients = grpcClients();
  const grpc = grpcEndpoints(clients);
  const counts = { http403: 0, httpAllowed: 0, grpc403: 0, grpcAllowed: 0, http404: 0, grpcNotFound: 0, refused: 0 };

  const createKey = (key: string, body: Record<string, unknown>) => call('POST', '/api/v1/api-keys', { key, body });

  beforeAll(async () => {
    receiver = await startReceiver();
    owner = await seedTenant('s', receiver.url);
    other = await seedProject(owner.key, 't', receiver.url);
    for (const scope of SCOPES) {
      const made = await createKey(owner.key, { name: `only ${scope} ${TAG}`, scopes: [scope] });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body).toMatchObject({ scopes: [scope], projects: null, expires_at: null });
      keyOf[scope] = made.body.api_key;
    }
  });

  afterAll(async () => {
    await receiver?.close();
    for (const c of Object.values(clients)) c.close();
    console.log(`scope cases checked: ${Object.values(counts).reduce((s, n) => s + n, 0)} ${JSON.stringify(counts)}`);
  });

  const byRank = <T extends { name: string }>(eps: T[], method: (e: T) => string) =>
    [...eps].sort((x, y) => controlRank(x.name, method(x)) - controlRank(y.name, method(y)));

  it('states in the OpenAPI document the scope each route needs, as the matrix expects', async () => {
    const doc = await call('GET', '/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const ep of [...HTTP_TENANT_LEVEL, ...HTTP_ON_RESOURCES]) {
      const template = templateOf(Object.keys(paths), ep.path(owner.ids))!;
      const op = paths[template][ep.method.toLowerCase()];
      const first = needed(ep.scope)[0] ?? null;
      expect(op['x-required-scope'], `${ep.method} ${template}`).toBe(first);
      expect(op.security, `${ep.method} ${template}`).toEqual([{ apiKey: first ? [first] : [] }]);
      if (first) expect(Object.keys(op.responses as object)).toContain('403');
    }
  });

  it('answers 403 naming a missing scope on every gateway route, and serves each route to a key with its scope', async () => {
    for (const scope of SCOPES) {
      for (const ep of byRank<HttpEndpoint>([...HTTP_TENANT_LEVEL, ...HTTP_ON_RESOURCES], (e) => e.method)) {
        const what = `${ep.method} ${ep.name} with a key of ${scope}`;
        const res = await call(ep.method, ep.path(owner.ids), { key: keyOf[scope], body: ep.body?.(owner.ids) });
        if (holds([scope], ep.scope)) {
          // Allowed: anything but a refusal of the key (an earlier write may have deleted the resource: 404).
          expect([401, 403], `${what}: ${JSON.stringify(res.body)}`).not.toContain(res.status);
          expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
          counts.httpAllowed++;
        } else {
          expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(403);
          expect(res.body.error.code, what).toBe('permission_denied');
          const lacking = needed(ep.scope).filter((n) => !holds([scope], n));
          expect(
            lacking.some((n) => res.body.error.message.includes(`"${n}"`)),
            `${what}: ${res.body.error.message}`,
          ).toBe(true);
          counts.http403++;
        }
      }
    }
    expect(counts.http403 + counts.httpAllowed).toBe(
      SCOPES.length * (HTTP_TENANT_LEVEL.length + HTTP_ON_RESOURCES.length),
    );
  });

  it('answers PERMISSION_DENIED naming a missing scope on every gRPC method, and serves each to a key with its scope', async () => {
    for (const scope of SCOPES) {
      const md = keyMetadata(keyOf[scope]);
      for (const ep of byRank<GrpcEndpoint>([...grpc.tenantLevel, ...grpc.onResources], () => 'POST')) {
        const what = `${ep.name} with a key of ${scope}`;
        const got = await ep.invoke(owner.ids, md).then(
          () => ({ code: status.OK, details: '' }),
          (e: { code: number; details: string }) => e,
        );
        if (holds([scope], ep.scope)) {
          expect([status.UNAUTHENTICATED, status.PERMISSION_DENIED], `${what}: ${got.details}`).not.toContain(got.code);
          expect([status.INTERNAL, status.UNKNOWN], `${what}: ${got.details}`).not.toContain(got.code);
          counts.grpcAllowed++;
        } else {
          expect(got.code, `${what}: ${got.details}`).toBe(status.PERMISSION_DENIED);
          const lacking = needed(ep.scope).filter((n) => !holds([scope], n));
          expect(
            lacking.some((n) => got.details.includes(`"${n}"`)),
            `${what}: ${got.details}`,
          ).toBe(true);
          counts.grpc403++;
        }
      }
    }
    expect(counts.grpc403 + counts.grpcAllowed).toBe(
      SCOPES.length * (grpc.tenantLevel.length + grpc.onResources.length),
    );
  });

  it("answers a key limited to one project with 404 on everything of the tenant's other project, as for missing ids", async () => {
    const limited = await createKey(owner.key, {
      name: `limited to one project ${TAG}`,
      scopes: SCOPES,
      projects: [owner.ids.project],
    });
    expect(limited.status, JSON.stringify(limited.body)).toBe(201);
    expect(limited.body.projects).toEqual([owner.ids.project]);
    const key = limited.body.api_key;
    for (const ep of HTTP_ON_RESOURCES) {
      for (const { label, target, missing } of addressings(ep.levels, owner.ids, other.ids)) {
        const what = `${ep.method} ${ep.name} (${label.replace(/A's/g, 'its own').replace(/B's/g, "the other project's")})`;
        const got = await call(ep.method, ep.path(target), { key, body: ep.body?.(target) });
        const none = await call(ep.method, ep.path(missing), { key, body: ep.body?.(missing) });
        expect(got.status, `${what}: ${JSON.stringify(got.body)}`).toBe(404);
        expect(got.body, what).toEqual(none.body);
        counts.http404++;
      }
    }
    const md = keyMetadata(key);
    for (const ep of grpc.onResources) {
      for (const { label, target, missing } of addressings(ep.levels, owner.ids, other.ids)) {
        const what = `${ep.name} (${label})`;
        const got = await ep.invoke(target, md).then(
          (r) => ({ code: status.OK, details: JSON.stringify(r) }),
          (e: { code: number; details: string }) => e,
        );
        const none = await ep.invoke(missing, md).then(
          (r) => ({ code: status.OK, details: JSON.stringify(r) }),
          (e: { code: number; details: string }) => e,
        );
        expect(got.code, `${what}: ${got.details}`).toBe(status.NOT_FOUND);
        expect(got.details, what).toBe(none.details);
        counts.grpcNotFound++;
      }
    }
    // Its own project answers; the tenant's lists hold only what it reaches.
    expect((await call('GET', `/api/v1/projects/${owner.ids.project}`, { key })).status).toBe(200);
    expect((await call('GET', '/api/v1/projects', { key })).body.projects.map((p: { id: number }) => p.id)).toEqual([
      owner.ids.project,
    ]);
    expect((await rpc(clients.projects, 'listProjects', {}, md)).projects.map((p) => p.id)).toEqual([
      owner.ids.project,
    ]);
    const keys = (await call('GET', '/api/v1/api-keys', { key })).body.keys as { projects: number[] | null }[];
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.projects).toEqual([owner.ids.project]);
    // Its page of the audit trail is full though the tenant's newest event is of a key it cannot see.
    expect((await createKey(owner.key, { name: `unlimited after ${TAG}`, scopes: ['ingest'] })).status).toBe(201);
    const page = (await call('GET', '/api/v1/api-keys/events?limit=1', { key })).body.events;
    expect(page).toEqual([expect.objectContaining({ action: 'created', key_id: limited.body.id })]);
    // Other projects' secrets appear nowhere in what it can list.
    const listed = JSON.stringify([
      (await call('GET', '/api/v1/api-keys', { key })).body,
      (await call('GET', '/api/v1/api-keys/events', { key })).body,
      (await call('GET', '/api/v1/projects', { key })).body,
    ]);
    for (const s of other.secrets) expect(listed, `leaks "${s}"`).not.toContain(s);
    // A project it made would be one it cannot reach: refused, and nothing made.
    const made = await call('POST', '/api/v1/projects', { key, body: { name: `unreachable ${TAG}` } });
    expect(made.status).toBe(403);
    expect(made.body.error.field).toBe('projects');
  });

  it('never lets a key make or revoke a key wider than itself, and changes nothing when it refuses', async () => {
    const expiry = later(3_600_000);
    const narrow = await createKey(owner.key, {
      name: `narrow ${TAG}`,
      scopes: ['keys', 'ingest'],
      projects: [owner.ids.project],
      expires_at: expiry,
    });
    expect(narrow.status).toBe(201);
    const key = narrow.body.api_key;
    const keyCount = async () =>
      withDb(async (db) => Number((await db.query('SELECT count(*) AS n FROM api_keys')).rows[0].n));
    const before = await keyCount();
    const attempts: { what: string; body: Record<string, unknown>; status: number; field: string }[] = [
      { what: 'a scope it lacks', body: { scopes: ['privacy'] }, status: 403, field: 'scopes[0]' },
      {
        what: 'a write of nothing it holds',
        body: { scopes: ['ingest', 'segments:write'] },
        status: 403,
        field: 'scopes[1]',
      },
      { what: 'a read it lacks', body: { scopes: ['profiles:read'] }, status: 403, field: 'scopes[0]' },
      { what: 'every project', body: { scopes: ['ingest'], projects: null }, status: 403, field: 'projects' },
      {
        what: 'a project it lacks',
        body: { scopes: ['ingest'], projects: [other.ids.project] },
        status: 404,
        field: '',
      },
      {
        what: 'its project and one it lacks',
        body: { scopes: ['ingest'], projects: [owner.ids.project, other.ids.project] },
        status: 404,
        field: '',
      },
      { what: 'no expiry', body: { scopes: ['ingest'], expires_at: null }, status: 403, field: 'expires_at' },
      {
        what: 'a later expiry',
        body: { scopes: ['ingest'], expires_at: later(7_200_000) },
        status: 403,
        field: 'expires_at',
      },
      { what: 'an unknown scope', body: { scopes: ['admin'] }, status: 400, field: 'scopes[0]' },
      { what: 'no scope', body: { scopes: [] }, status: 400, field: 'scopes' },
      {
        what: 'an expiry in the past',
        body: { scopes: ['ingest'], expires_at: later(-1_000) },
        status: 400,
        field: 'expires_at',
      },
    ];
    for (const a of attempts) {
      const res = await createKey(key, { name: `escalation ${TAG}`, ...a.body });
      expect(res.status, `${a.what}: ${JSON.stringify(res.body)}`).toBe(a.status);
      if (a.field) expect(res.body.error.field, a.what).toBe(a.field);
      counts.refused++;
    }
    // Over gRPC as well.
    const md = keyMetadata(key);
    const denied = await rpc(clients.keys, 'createApiKey', { name: 'escalation', scopes: ['privacy'] }, md).catch(
      (e) => e,
    );
    expect(denied.code).toBe(status.PERMISSION_DENIED);
    const hidden = await rpc(
      clients.keys,
      'createApiKey',
      { name: 'escalation', scopes: ['ingest'], projects: { allProjects: false, projects: [other.ids.project] } },
      md,
    ).catch((e) => e);
    expect(hidden.code).toBe(status.NOT_FOUND);
    expect(await keyCount()).toBe(before);

    // What it may give: its own scopes, project and expiry, the defaults being its own.
    const child = await createKey(key, { name: `child ${TAG}`, scopes: ['ingest'] });
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    expect(child.body).toMatchObject({
      scopes: ['ingest'],
      projects: [owner.ids.project],
      expires_at: new Date(expiry).toISOString(),
      created_by: key.slice(0, 8),
    });
    // A write scope gives its read.
    const writer = await createKey(owner.key, { name: `writer ${TAG}`, scopes: ['keys', 'segments:write'] });
    const reader = await createKey(writer.body.api_key, { name: `reader ${TAG}`, scopes: ['segments:read'] });
    expect(reader.status).toBe(201);

    // Revoking: the tenant's first key is out of the narrow key's projects (404) and wider than the
    // keys-only key (403); both stay working.
    const first = (await call('GET', '/api/v1/api-keys/current', { key: owner.key })).body;
    expect(first.scopes).toHaveLength(SCOPES.length);
    expect((await call('DELETE', `/api/v1/api-keys/${first.id}`, { key })).status).toBe(404);
    const wider = await call('DELETE', `/api/v1/api-keys/${first.id}`, { key: keyOf.keys });
    expect(wider.status).toBe(403);
    expect((await call('GET', '/api/v1/api-keys/current', { key: owner.key })).status).toBe(200);
    // It may revoke what it made, and the trail names who did what.
    const revoked = await call('DELETE', `/api/v1/api-keys/${child.body.id}`, { key });
    expect(revoked.status).toBe(204);
    expect((await call('GET', '/api/v1/projects', { key: child.body.api_key })).status).toBe(401);
    const events = (await call('GET', '/api/v1/api-keys/events', { key: owner.key })).body.events as {
      action: string;
      key_id: string;
      actor: string;
    }[];
    expect(events.slice(0, 4)).toEqual([
      expect.objectContaining({ action: 'revoked', key_id: child.body.id, actor: key.slice(0, 8) }),
      expect.objectContaining({ action: 'created', key_id: reader.body.id, actor: writer.body.prefix }),
      expect.objectContaining({ action: 'created', key_id: writer.body.id, actor: owner.key.slice(0, 8) }),
      expect.objectContaining({ action: 'created', key_id: child.body.id, actor: key.slice(0, 8) }),
    ]);
  });
});
