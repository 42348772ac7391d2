import type { AppContext } from '../app.js';

export interface Readiness {
  ready: boolean;
  database: boolean;
  temporal: boolean;
}

/**
 * What "ready to serve" means for an api process, on both transports: PostgreSQL answers a query
 * and the Temporal frontend answers. `/readyz` reports it and gRPC health follows it.
 */
export async function checkReadiness(ctx: Pick<AppContext, 'db' | 'temporalReady'>): Promise<Readiness> {
  const [database, temporal] = await Promise.all([
    ctx.db.raw('SELECT 1').then(
      () => true,
      () => false,
    ),
    ctx.temporalReady().catch(() => false),
  ]);
  return { ready: database && temporal, database, temporal };
}
