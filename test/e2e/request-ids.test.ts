import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { Any } from '../../gen/google/protobuf/any.js';
import { BadRequest, RetryInfo } from '../../gen/google/rpc/error_details.js';
import { Status } from '../../gen/google/rpc/status.js';
import { call, newTenant, stack, waitFor } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The api process's JSON log lines that name `requestId`, once its access line is written. */
function linesOf(requestId: string): Promise<Record<string, unknown>[]> {
  return waitFor(`the api's log lines of request ${requestId}`, async () => {
    const lines = readFileSync(stack().logs.api, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.request_id === requestId);
    return lines.some((l) => l.msg === 'request') && lines;
  });
}

const accessLines = async (requestId: string) => (await linesOf(requestId)).filter((l) => l.msg === 'request');

/** A unary call through the generated client, with the response's headers and trailers. */
function unaryWithMetadata<C>(client: C, method: keyof C, req: unknown, md: Metadata) {
  return new Promise<{ err: ServiceError | null; headers?: Metadata; trailers: Metadata }>((resolve) => {
    let headers: Metadata | undefined;
    let err: ServiceError | null = null;
    const c = (client[method] as any).call(client, req, md, {}, (e: ServiceError | null) => (err = e));
    c.on('metadata', (m: Metadata) => (headers = m));
    c.on('status', (s: StatusObject) => setImmediate(() => resolve({ err, headers, trailers: s.metadata })));
  });
}

/** The standard error model a gRPC client decodes from an error's trailers. */
function statusDetails(err: ServiceError) {
  const [bytes] = err.metadata.get('grpc-status-details-bin');
  const decoded = Status.decode(bytes as Buffer);
  const unpack = (any: Any) => {
    if (any.typeUrl === 'type.googleapis.com/google.rpc.BadRequest') return BadRequest.decode(any.value);
    if (any.typeUrl === 'type.googleapis.com/google.rpc.RetryInfo') return RetryInfo.decode(any.value);
    throw new Error(`unexpected detail ${any.typeUrl}`);
  };
  return { ...decoded, details: decoded.details.map((d) => ({ typeUrl: d.typeUrl, ...unpack(d) })) };
}

describe('request ids and access lines', () => {
  it("HTTP: a caller's id comes back and names the request's one access line, with the route pattern", async () => {
    const t = await newTenant('request-ids');
    const id = `e2e-${randomUUID()}`;
    const res = await call('GET', `/api/v1/profiles/nobody-here?project_id=${t.projectId}`, {
      key: t.key,
      headers: { 'X-Request-Id': id },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(await accessLines(id)).toEqual([
      expect.objectContaining({
        level: 'info',
        transport: 'http',
        method: 'GET',
        route: '/api/v1/profiles/:user_id',
        status: 404,
        request_id: id,
        client: '127.0.0.1',
        duration_ms: expect.any(Number),
      }),
    ]);

    // No route at all: still answered with the id, and logged under one label, not the raw path.
    const lost = `e2e-${randomUUID()}`;
    const none = await call('GET', '/no/such/route/42', { headers: { 'X-Request-Id': lost } });
    expect(none.status).toBe(404);
    expect(none.headers.get('x-request-id')).toBe(lost);
    expect(await accessLines(lost)).toEqual([expect.objectContaining({ route: 'unmatched', status: 404 })]);
  });

  it('HTTP: a malformed X-Request-Id is replaced, not refused; a missing one is generated', async () => {
    const t = await newTenant('request-ids-bad');
    for (const bad of ['two words', 'x'.repeat(129), 'caf\u00e9']) {
      const res = await call('GET', '/api/v1/projects', { key: t.key, headers: { 'X-Request-Id': bad } });
      expect(res.status).toBe(200);
      const given = res.headers.get('x-request-id')!;
      expect(given).toMatch(UUID);
      expect(await accessLines(given)).toEqual([
        expect.objectContaining({ route: '/api/v1/projects', status: 200, request_id: given }),
      ]);
    }
    const res = await call('GET', '/api/v1/projects', { key: t.key });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it("HTTP: a request Node's parser refuses is answered with an id and logged", async () => {
    const { port } = new URL(stack().gatewayUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /api/v1/projects HTTP/1.1\r\nHost: x\r\nthis is not a header\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
    expect(id).toMatch(UUID);
    expect(await accessLines(id!)).toEqual([
      expect.objectContaining({ transport: 'http', route: 'unmatched', method: 'unknown', status: 400 }),
    ]);
  });

  it("gRPC: the caller's x-request-id comes back in headers and trailers and names the call's access line", async () => {
    const t = await newTenant('request-ids-grpc');
    const { projects } = grpcClients();
    const id = `e2e-grpc-${randomUUID()}`;
    const md = keyMetadata(t.key);
    md.set('x-request-id', id);
    const ok = await unaryWithMetadata(projects, 'listProjects', {}, md);
    expect(ok.err).toBeNull();
    expect(ok.headers?.get('x-request-id')).toEqual([id]);
    expect(ok.trailers.get('x-request-id')).toEqual([id]);
    expect(await accessLines(id)).toEqual([
      expect.objectContaining({
        level: 'info',
        transport: 'grpc',
        method: 'POST',
        route: '/profiling.v1.ProjectsService/ListProjects',
        status: 'OK',
        request_id: id,
        client: '127.0.0.1',
      }),
    ]);

    // Malformed: replaced, and the replacement is what comes back (in the trailers of an error too).
    const bad = keyMetadata('sps_' + 'W'.repeat(43));
    bad.set('x-request-id', 'not an id!');
    const refused = await unaryWithMetadata(projects, 'listProjects', {}, bad);
    expect(refused.err?.code).toBe(status.UNAUTHENTICATED);
    const [given] = refused.trailers.get('x-request-id');
    expect(given).toMatch(UUID);
    expect(refused.err!.metadata.get('x-request-id')).toEqual([given]);
    expect(await accessLines(String(given))).toEqual([
      expect.objectContaining({ route: '/profiling.v1.ProjectsService/ListProjects', status: 'UNAUTHENTICATED' }),
    ]);
  });

  it('gRPC: grpc-status-details-bin carries a BadRequest naming the field of an invalid argument', async () => {
    const t = await newTenant('status-details');
    const { users } = grpcClients();
    const err: ServiceError = await rpc(
      users,
      'identifyUsers',
      { projectId: t.projectId, users: [] },
      keyMetadata(t.key),
    ).then(
      () => {
        throw new Error('an empty batch was accepted');
      },
      (e: ServiceError) => e,
    );
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.metadata.get('error-field')).toEqual(['users']);
    expect(statusDetails(err)).toEqual({
      code: status.INVALID_ARGUMENT,
      message: err.details,
      details: [
        {
          typeUrl: 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'users', description: 'users must be a non-empty array' }],
        },
      ],
    });
  });

  it('gRPC: a rate-limited answer carries RetryInfo with the wait of its retry-after', async () => {
    const t = await newTenant('retry-info');
    const md = keyMetadata(t.key);
    const { webhooks } = grpcClients();
    const created = await rpc(
      webhooks,
      'createWebhook',
      {
        projectId: t.projectId,
        pipelineId: t.pipelineId,
        url: 'https://example.com/retry-info',
        events: [],
        segments: [],
      },
      md,
    );
    const ref = { projectId: t.projectId, pipelineId: t.pipelineId, webhookId: created.webhook!.id };
    const recover = () => rpc(webhooks, 'recoverWebhook', { ref, since: new Date(Date.now() - 60_000) }, md);
    // Five recovers per webhook per minute (src/quotas.ts): the sixth is refused.
    for (let i = 0; i < 5; i++) await recover();
    const err: ServiceError = await recover().then(
      () => {
        throw new Error('a sixth recover within the minute was served');
      },
      (e: ServiceError) => e,
    );
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
    const wait = Number(err.metadata.get('retry-after')[0]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(statusDetails(err)).toEqual({
      code: status.RESOURCE_EXHAUSTED,
      message: err.details,
      details: [{ typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: { seconds: wait, nanos: 0 } }],
    });
  });
});
