import { timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../app.js';
import { createTenant } from '../../auth/create-tenant.js';
import { AppError } from '../../errors.js';
import { requireObject } from '../../validation.js';
import type { Router } from './router.js';

function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function addOpsRoutes(router: Router, ctx: AppContext): void {
  router.add('GET', '/healthz', async () => ({ status: 200, body: { status: 'ok' } }));

  router.add('GET', '/readyz', async () => {
    const [database, temporal] = await Promise.all([
      ctx.db.raw('SELECT 1').then(() => true, () => false),
      ctx.temporalReady().catch(() => false),
    ]);
    const ready = database && temporal;
    return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not ready', database, temporal } };
  });

  // Without ADMIN_TOKEN the route does not exist at all.
  const token = ctx.config.adminToken;
  if (token) {
    router.add('POST', '/admin/v1/tenants', async (req) => {
      if (!sameToken(req.header('x-admin-token'), token)) throw new AppError('unauthenticated', 'missing or wrong X-Admin-Token');
      return { status: 201, body: await createTenant(ctx.db, requireObject(await req.json())) };
    });
  }
}
