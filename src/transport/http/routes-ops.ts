import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../app.js';
import { limitedOr } from '../../auth/api-keys.js';
import { createTenant } from '../../auth/create-tenant.js';
import { revokeApiKey } from '../../auth/revoke-api-key.js';
import { AppError } from '../../errors.js';
import { read, revokeKeyBody, tenantBody } from './inputs.js';
import { checkReadiness } from '../readiness.js';
import type { Request, Router } from './router.js';
import { errors, routeDoc } from './openapi/route-doc.js';
import * as out from './openapi/schemas.js';
import { scrape } from '../../metrics/registry.js';
import { RawBody } from './errors.js';

function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function addOpsRoutes(router: Router, ctx: AppContext): void {
  router.add(
    'GET',
    '/healthz',
    async () => ({ status: 200, body: { status: 'ok' } }),
    routeDoc({
      operationId: 'healthz',
      summary: 'Liveness: the process answers',
      tag: 'Operations',
      auth: 'none',
      responses: { 200: { description: 'Alive', body: z.object({ status: z.literal('ok') }) } },
    }),
  );
  addMetricsRoute(router);

  // gRPC health follows the same checks (transport/grpc/health.ts).
  router.add(
    'GET',
    '/readyz',
    async () => {
      const { ready, database, temporal, reasons } = await checkReadiness(ctx);
      return {
        status: ready ? 200 : 503,
        body: { status: ready ? 'ready' : 'not ready', database, temporal, ...(reasons && { reasons }) },
      };
    },
    routeDoc({
      operationId: 'readyz',
      summary:
        "Readiness: PostgreSQL and Temporal answer, and Temporal's namespace has the search attributes (gRPC health follows the same checks)",
      tag: 'Operations',
      auth: 'none',
      responses: {
        200: { description: 'Ready', body: out.readiness },
        503: { description: 'Not ready: which dependency does not answer', body: out.readiness },
      },
    }),
  );

  // Without ADMIN_TOKEN the route does not exist at all.
  const token = ctx.config.adminToken;
  if (token) {
    // Wrong tokens count against the same per-address budget as wrong API keys.
    const admin = async (req: Request) => {
      if (sameToken(req.header('x-admin-token'), token)) return;
      throw await limitedOr(
        ctx.authFailures,
        req.clientAddress,
        new AppError('unauthenticated', 'missing or wrong X-Admin-Token'),
      );
    };
    router.add(
      'POST',
      '/admin/v1/tenants',
      async (req) => {
        await admin(req);
        return { status: 201, body: await createTenant(ctx.db, read(tenantBody, await req.json())) };
      },
      routeDoc({
        operationId: 'createTenant',
        summary: 'Create a tenant and its first API key (shown once)',
        tag: 'Admin',
        auth: 'adminToken',
        body: tenantBody,
        responses: { 201: { description: 'The tenant and its API key', body: out.newTenant } },
      }),
    );
    router.add(
      'POST',
      '/admin/v1/api-keys/revoke',
      async (req) => {
        await admin(req);
        return { status: 200, body: await revokeApiKey(ctx.db, read(revokeKeyBody, await req.json())) };
      },
      routeDoc({
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key, given in clear',
        tag: 'Admin',
        auth: 'adminToken',
        body: revokeKeyBody,
        responses: { 200: { description: 'Revoked', body: out.revokedKey }, ...errors(404) },
      }),
    );
  }
}

/**
 * The api's `GET /metrics`, on the gateway port. Open, like /healthz: it holds counts and
 * latencies by route pattern and outcome, never a tenant, user or key; where the gateway port is
 * public, keep /metrics off the balancer's routes (docs/operations.md).
 */
function addMetricsRoute(router: Router): void {
  router.add(
    'GET',
    '/metrics',
    async () => {
      const { contentType, body } = await scrape();
      return { status: 200, body: new RawBody(contentType, body) };
    },
    routeDoc({
      operationId: 'metrics',
      summary: 'Prometheus metrics of this api process',
      tag: 'Operations',
      auth: 'none',
      responses: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain' } },
    }),
  );
}
