import { z } from 'zod';
import type { AppContext } from '../../app.js';
import * as keys from '../../auth/manage-keys.js';
import { listApiKeyEvents } from '../../auth/key-events.js';
import { authenticated } from './authenticated.js';
import { createApiKeyBody, keyEventsQuery, read } from './inputs.js';
import type { Router } from './router.js';
import { errors, routeDoc, type RouteDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';

const keyDoc = (doc: Omit<RouteDoc, 'tag' | 'auth'>) => routeDoc({ ...doc, tag: 'API keys', auth: 'apiKey' });

/** A tenant's own API keys (issue 48; docs/api.md "API keys and scopes"). */
export function addKeyRoutes(router: Router, ctx: AppContext): void {
  const { db } = ctx;

  router.add(
    'POST',
    '/api/v1/api-keys',
    authenticated(ctx, 'keys', async (who, req) => ({
      status: 201,
      body: await keys.createApiKey(db, who, read(createApiKeyBody, await req.json())),
    })),
    keyDoc({
      operationId: 'createApiKey',
      summary: 'Create an API key with some scopes, projects and an expiry (the secret is shown once)',
      description:
        'A key gives only scopes it holds, only projects it reaches, and no later expiry than its own: past any, 403 ' +
        `(a project it cannot reach: 404). At most ${keys.API_KEYS_PER_TENANT} keys not revoked per tenant (422). ` +
        'Rotation: create the new key, move to it, then revoke the old one.',
      body: createApiKeyBody,
      responses: { 201: { description: 'The key, with its secret', body: out.newApiKey }, ...errors(404, 422) },
    }),
  );

  router.add(
    'GET',
    '/api/v1/api-keys',
    authenticated(ctx, 'keys', async (who) => ({ status: 200, body: { keys: await keys.listApiKeys(db, who) } })),
    keyDoc({
      operationId: 'listApiKeys',
      summary: "The tenant's keys not revoked, oldest first (never their secrets)",
      description: 'A key limited to some projects lists the keys limited to those projects.',
      responses: { 200: { description: 'The keys', body: z.object({ keys: z.array(out.apiKey) }) } },
    }),
  );

  router.add(
    'GET',
    '/api/v1/api-keys/current',
    authenticated(ctx, null, async (who) => ({ status: 200, body: await keys.currentApiKey(db, who) })),
    keyDoc({
      operationId: 'getCurrentApiKey',
      summary: 'The calling key itself: its scopes, projects and expiry (any key may ask)',
      responses: { 200: { description: 'The key', body: out.apiKey } },
    }),
  );

  router.add(
    'GET',
    '/api/v1/api-keys/events',
    authenticated(ctx, 'keys', async (who, req) => {
      const q = read(keyEventsQuery, req.query);
      return { status: 200, body: { events: await listApiKeyEvents(db, who, q) } };
    }),
    keyDoc({
      operationId: 'listApiKeyEvents',
      summary: 'The audit trail of key creations and revocations, newest first, with the acting key',
      query: keyEventsQuery,
      responses: {
        200: { description: 'The events', body: z.object({ events: z.array(out.apiKeyEvent) }) },
        ...errors(400),
      },
    }),
  );

  router.add(
    'DELETE',
    '/api/v1/api-keys/:key_id',
    authenticated(ctx, 'keys', async (who, req) => {
      await keys.revokeApiKeyById(db, who, req.params.key_id);
      return { status: 204 };
    }),
    keyDoc({
      operationId: 'deleteApiKey',
      summary: 'Revoke a key: refused by every api process from the next request',
      description:
        'A key revokes itself or a key whose scopes it holds (403 otherwise); a revoked, unknown or unreachable key is 404.',
      responses: { 204: { description: 'Revoked' }, ...errors(404) },
    }),
  );
}
