import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../../app.js';
import { createRouter } from '../server.js';
import { Router } from '../router.js';
import { openApiPath } from './document.js';
import { documentedRouter, gatewayDocument } from './gateway-document.js';

type Doc = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>> };

describe('the OpenAPI document', () => {
  const routes = documentedRouter().list();
  const doc = gatewayDocument() as unknown as Doc;

  it('has every route the gateway has, and nothing else', () => {
    const fromRouter = routes.map((r) => `${r.method} ${openApiPath(r.pattern)}`).sort();
    const fromDoc = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(routes.filter((r) => !r.doc).map((r) => `${r.method} ${r.pattern}`)).toEqual([]);
    expect(fromDoc).toEqual(fromRouter);
    // The ones a client meets first, by name, so an empty router cannot pass.
    expect(fromDoc).toEqual(
      expect.arrayContaining([
        'POST /api/v1/users',
        'GET /api/v1/profiles/{user_id}/timeline',
        'GET /projects/{project_id}/pipelines/{pipeline_id}/webhooks/{webhook_id}/deliveries',
        'POST /admin/v1/tenants',
        'GET /openapi.json',
        'GET /healthz',
      ]),
    );
  });

  it('names each operation once and documents a success and the error body for each', () => {
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
    for (const op of ops) {
      expect(
        Object.keys(op.responses).some((s) => s.startsWith('2')),
        op.operationId,
      ).toBe(true);
      expect(op.responses['500'], op.operationId).toBeDefined();
    }
  });

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is what GET /openapi.json serves', async () => {
    const found = documentedRouter().match('GET', '/openapi.json');
    const reply = await found!.handler({} as never);
    expect(reply.status).toBe(200);
    expect(JSON.parse((reply.body as { text: string }).text)).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('leaves the admin routes out where ADMIN_TOKEN does not make them', () => {
    const router = createRouter({ config: {} } as unknown as AppContext);
    const served = router.list().map((r) => r.pattern);
    expect(served).not.toContain('/admin/v1/tenants');
    expect(served).toContain('/api/v1/users');
  });
});

describe('a known path asked with another method', () => {
  const router = new Router()
    .add('GET', '/things/:id', async () => ({ status: 200 }))
    .add('DELETE', '/things/:id', async () => ({ status: 204 }));

  it('answers 405 with Allow and the error body', async () => {
    const found = router.match('PUT', '/things/7');
    expect(found?.pattern).toBe('/things/:id');
    const reply = await found!.handler({} as never);
    expect(reply).toEqual({
      status: 405,
      headers: { Allow: 'GET, HEAD, DELETE' },
      body: {
        error: { code: 'method_not_allowed', message: 'PUT is not allowed here; allowed: GET, HEAD, DELETE' },
      },
    });
  });

  it('answers HEAD with the GET route', () => {
    expect(router.match('HEAD', '/things/7')?.params).toEqual({ id: '7' });
  });

  it('leaves an unknown path to the 404', () => {
    expect(router.match('GET', '/things/7/parts')).toBeUndefined();
    expect(router.match('PUT', '/others/7')).toBeUndefined();
  });
});
