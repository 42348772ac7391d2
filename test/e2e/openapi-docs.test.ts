import { Validator } from '@seriousme/openapi-schema-validator';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitForBatch } from '../support/api.js';
import { checkAnswer } from '../support/contract.js';
import { launchChromium, RENDERED_OPERATIONS } from '../support/docs-browser.js';

describe('the OpenAPI document and the reference page', () => {
  it('serves /openapi.json without a key, valid OpenAPI 3.1', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v1/users'].post.operationId).toBe('identifyUsers');
    expect(res.body.components.securitySchemes.apiKey).toMatchObject({ in: 'header', name: 'X-API-Key' });
    const validator = new Validator();
    const result = await validator.validate(res.body as Parameters<Validator['validate']>[0]);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('answers a known path with another method 405, with Allow and the error body, and changes nothing', async () => {
    const t = await newTenant('method');
    const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks`;
    const res = await call('PATCH', base, { key: t.key, body: { url: 'https://example.com/hook' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, GET, HEAD');
    expect(res.body.error).toEqual({
      code: 'method_not_allowed',
      message: 'PATCH is not allowed here; allowed: POST, GET, HEAD',
    });
    expect((await call('GET', base, { key: t.key })).body).toEqual([]);

    // A path served by two route files (the profile's read, the privacy routes' erasure) names both.
    const profile = await call('PUT', `/api/v1/profiles/someone?project_id=${t.projectId}`, { key: t.key });
    expect(profile.status).toBe(405);
    expect(profile.headers.get('allow')).toBe('GET, HEAD, DELETE');
    expect((await call('GET', `/api/v1/erasures?project_id=${t.projectId}`, { key: t.key })).body).toEqual({
      erasures: [],
    });
    // An unknown path stays a 404.
    expect((await call('GET', '/api/v1/nothing-here', { key: t.key })).status).toBe(404);
    // A name of the page's files that is an Object.prototype key is not a file either.
    for (const name of ['constructor', '__proto__', 'toString', '..%2Fpackage.json']) {
      expect((await call('GET', `/docs/${name}`)).status, name).toBe(404);
    }
  });

  it('answers HEAD on every GET route like the GET, without a body; and every answer says nosniff', async () => {
    const t = await newTenant('head');
    const erasure = await call('DELETE', `/api/v1/profiles/never-seen?project_id=${t.projectId}`, { key: t.key });
    expect(erasure.status).toBe(202);
    const paths = [
      '/healthz',
      '/openapi.json',
      '/docs',
      '/console',
      '/api/v1/projects',
      `/api/v1/profiles?project_id=${t.projectId}`,
      `/api/v1/projects/${t.projectId}`,
      `/api/v1/erasures?project_id=${t.projectId}`,
      `/api/v1/erasures/${erasure.body.id}`,
      `/api/v1/suppressions?project_id=${t.projectId}`,
      `/api/v1/profiles/nobody/export?project_id=${t.projectId}`,
      `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks`,
    ];
    for (const path of paths) {
      const get = await fetch(stack().gatewayUrl + path, { headers: { 'X-API-Key': t.key } });
      const head = await fetch(stack().gatewayUrl + path, { method: 'HEAD', headers: { 'X-API-Key': t.key } });
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length'), path).toBe(String(Buffer.byteLength(await get.text())));
      expect(await head.text(), path).toBe('');
      for (const res of [get, head]) expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // Errors too, and a HEAD on a route with no GET is 405 naming the methods it has.
    const missing = await call('GET', '/api/v1/profiles/nobody?project_id=' + t.projectId, { key: t.key });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    const headPost = await fetch(`${stack().gatewayUrl}/api/v1/users`, {
      method: 'HEAD',
      headers: { 'X-API-Key': t.key },
    });
    expect(headPost.status).toBe(405);
    expect(headPost.headers.get('allow')).toBe('POST');

    // The export is streamed (no Content-Length): HEAD has the GET's status and headers and no
    // body. The user's item is exported as soon as it is stored, before its analysis.
    const submitted = await call('POST', '/api/v1/users', {
      key: t.key,
      body: { project_id: t.projectId, users: [{ user_id: 'exported', text: 'Fine, thanks.' }] },
    });
    expect(submitted.status).toBe(202);
    const exportPath = `/api/v1/profiles/exported/export?project_id=${t.projectId}`;
    const get = await fetch(stack().gatewayUrl + exportPath, { headers: { 'X-API-Key': t.key } });
    const head = await fetch(stack().gatewayUrl + exportPath, { method: 'HEAD', headers: { 'X-API-Key': t.key } });
    expect(get.status).toBe(200);
    expect(JSON.parse(await get.text())).toMatchObject({ user_id: 'exported', project_id: t.projectId });
    expect(head.status).toBe(200);
    for (const name of ['content-type', 'content-disposition', 'content-length', 'x-content-type-options']) {
      expect(head.headers.get(name), name).toBe(get.headers.get(name));
    }
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await head.text()).toBe('');
    await waitForBatch(submitted.body.source_id);
  });

  it('serves /docs with a policy that allows only its own origin and no framing', async () => {
    const res = await fetch(`${stack().gatewayUrl}/docs`);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe-inline');
  });

  it("refuses answers the document does not list: the check every e2e test's calls go through", async () => {
    const base = stack().gatewayUrl;
    const answer = { method: 'GET', path: '/healthz', status: 200, contentType: 'application/json', allow: null };
    await checkAnswer(base, { ...answer, body: { status: 'ok' } });
    // Published open (x-closed), checked closed: a field added without its schema is caught.
    await expect(checkAnswer(base, { ...answer, body: { status: 'ok', extra: 1 } })).rejects.toThrow(
      /does not match the documented schema/,
    );
    await expect(checkAnswer(base, { ...answer, body: { status: 'fine' } })).rejects.toThrow(
      /GET \/healthz answered 200 \(\/healthz\): the body does not match the documented schema: data\/status/,
    );
    await expect(checkAnswer(base, { ...answer, status: 418, body: { status: 'ok' } })).rejects.toThrow(
      /a status the document does not list for GET \/healthz/,
    );
    await expect(
      checkAnswer(base, {
        ...answer,
        method: 'POST',
        status: 405,
        allow: 'GET, PUT',
        body: { error: { code: 'method_not_allowed', message: 'x' } },
      }),
    ).rejects.toThrow(/with Allow "GET, PUT"; the document lists GET/);
    await expect(checkAnswer(base, { ...answer, path: '/nowhere', status: 200, body: {} })).rejects.toThrow(
      /a path the document does not list \(expected 404\)/,
    );
  });

  describe('GET /docs in headless chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('renders the operations from the gateway alone, without console errors', async () => {
      const origin = new URL(stack().gatewayUrl).origin;
      const page = await browser.newPage();
      const errors: string[] = [];
      const outside: string[] = [];
      const requested: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (r) => {
        const url = r.url();
        requested.push(url);
        if (!url.startsWith('data:') && new URL(url).origin !== origin) outside.push(url);
      });
      await page.goto(`${origin}/docs`);
      for (const op of RENDERED_OPERATIONS) {
        await page.locator(`#${op}`).waitFor({ timeout: 30_000 });
      }
      expect(await page.locator('.opblock').count()).toBeGreaterThanOrEqual(30);
      expect(await page.locator('.info .title').innerText()).toContain('Semantic profiling service');
      expect(requested).toContain(`${origin}/openapi.json`);
      expect(outside).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });
  });
});
