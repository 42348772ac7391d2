import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { credentials, Metadata, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectsServiceClient } from '../../gen/profiling/v1/projects.js';
import { newTenant, stack, type Tenant } from '../support/api.js';
import { checkAnswer } from '../support/contract.js';
import { keyMetadata, rpc } from '../support/grpc.js';
import type { ServiceProcess } from '../support/service-process.js';
import { startStackApi } from '../support/stack-api.js';

const LIMIT = 5;
const WRONG_KEY = 'sps_' + 'W'.repeat(43);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** An HTTP request from a chosen loopback address (each is its own client for the limiter). */
function request(
  base: string,
  method: string,
  pathname: string,
  headers: Record<string, string>,
  from = '127.0.0.1',
  body?: unknown,
) {
  return new Promise<Answer>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${pathname}`,
      { method, localAddress: from, headers: { ...headers, ...(text ? { 'Content-Type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const answer = { status: res.statusCode!, headers: res.headers, body: raw ? JSON.parse(raw) : undefined };
          // Held to the OpenAPI document like every answer call() gets (test/support/contract.ts).
          const header = (name: string) => (res.headers[name] === undefined ? null : String(res.headers[name]));
          checkAnswer(base, {
            ...answer,
            method,
            path: pathname,
            contentType: header('content-type'),
            allow: header('allow'),
          })
            .then(() => resolve(answer))
            .catch(reject);
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * The shared test stack allows a million failures (all tests come from 127.0.0.1), so this file
 * runs its own api process on the same database and Temporal with a limit of 5 failures per hour:
 * one token comes back every 12 minutes, so no refill can happen while the test runs.
 */
describe('failed-authentication rate limit', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'auth-limit-'));
  let api: ServiceProcess;
  let base: string;
  let grpcProjects: ProjectsServiceClient;
  let tenant: Tenant;

  beforeAll(async () => {
    let grpcAddress: string;
    ({
      proc: api,
      base,
      grpcAddress,
    } = await startStackApi(dir, 'api', {
      // Per minute: a token comes back every 12 s, longer than this test's requests take.
      AUTH_FAILURE_LIMIT: String(LIMIT),
    }));
    grpcProjects = new ProjectsServiceClient(grpcAddress, credentials.createInsecure());
    tenant = await newTenant('rate-limit');
  });

  afterAll(async () => {
    grpcProjects?.close();
    if (api && api.proc.exitCode === null && api.proc.signalCode === null) api.proc.kill('SIGTERM');
    await api?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 401 up to the limit, then 429 with Retry-After on both transports, while valid keys are served', async () => {
    const badMetadata = new Metadata();
    badMetadata.set('x-api-key', WRONG_KEY);
    // Five failures of every kind share the address's budget: each is still a plain 401.
    const failures = [
      await request(base, 'GET', '/api/v1/projects', {}),
      await request(base, 'GET', '/api/v1/projects', { 'X-API-Key': 'not-a-key' }),
      await request(base, 'GET', `/api/v1/profiles?project_id=${tenant.projectId}`, { 'X-API-Key': WRONG_KEY }),
      await request(base, 'POST', '/admin/v1/tenants', { 'X-Admin-Token': 'wrong-admin-token-0000' }, '127.0.0.1', {
        name: 'x',
      }),
    ];
    expect(failures.map((f) => f.status)).toEqual([401, 401, 401, 401]);
    const grpcFailure = await rpc(grpcProjects, 'listProjects', {}, badMetadata).catch((e) => e);
    expect(grpcFailure.code).toBe(status.UNAUTHENTICATED);

    // The sixth failure is refused as rate limited, in the usual error shape.
    const limited = await request(base, 'GET', '/api/v1/projects', { 'X-API-Key': WRONG_KEY });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { code: 'rate_limited', message: expect.stringMatching(/too many failed authentications/) },
    });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(12);
    expect((await request(base, 'GET', '/api/v1/projects', {})).status).toBe(429);
    const adminLimited = await request(
      base,
      'POST',
      '/admin/v1/tenants',
      { 'X-Admin-Token': 'wrong-admin-token-0000' },
      '127.0.0.1',
      { name: 'x' },
    );
    expect(adminLimited.status).toBe(429);

    const grpcLimited = await rpc(grpcProjects, 'listProjects', {}, badMetadata).catch((e) => e);
    expect(grpcLimited.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(grpcLimited.metadata.get('error-code')).toEqual(['rate_limited']);
    expect(Number(grpcLimited.metadata.get('retry-after')[0])).toBeGreaterThan(0);

    // A valid key from the same, limited address is served on both transports, and so is the admin token.
    const valid = await request(base, 'GET', '/api/v1/projects', { 'X-API-Key': tenant.key });
    expect(valid.status).toBe(200);
    expect(valid.body.projects.map((p: { id: number }) => p.id)).toEqual([tenant.projectId]);
    const grpcValid = await rpc(grpcProjects, 'listProjects', {}, keyMetadata(tenant.key));
    expect(grpcValid.projects.map((p) => p.id)).toEqual([tenant.projectId]);
    const admin = await request(
      base,
      'POST',
      '/admin/v1/tenants',
      { 'X-Admin-Token': stack().adminToken },
      '127.0.0.1',
      { name: 'served' },
    );
    expect(admin.status).toBe(201);

    // X-Forwarded-For is not trusted: naming another address does not escape the limit, and naming
    // the limited one does not spend someone else's budget.
    const spoofed = await request(base, 'GET', '/api/v1/projects', {
      'X-API-Key': WRONG_KEY,
      'X-Forwarded-For': '203.0.113.9',
    });
    expect(spoofed.status).toBe(429);
    const framed = await request(
      base,
      'GET',
      '/api/v1/projects',
      { 'X-API-Key': WRONG_KEY, 'X-Forwarded-For': '127.0.0.1' },
      '127.0.0.3',
    );
    expect(framed.status).toBe(401);

    // Another client address has its own budget.
    const other = await request(base, 'GET', '/api/v1/projects', { 'X-API-Key': WRONG_KEY }, '127.0.0.2');
    expect(other.status).toBe(401);
    expect(other.body.error.code).toBe('unauthenticated');
    // And the limited one stays limited.
    expect((await request(base, 'GET', '/api/v1/projects', { 'X-API-Key': WRONG_KEY })).status).toBe(429);
  });
});
