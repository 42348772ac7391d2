import type { AppContext } from '../app.js';
import { whyNoSession, whyPoolCannotConnect } from '../db/pool-health.js';

export interface Readiness {
  ready: boolean;
  database: boolean;
  temporal: boolean;
  /** Why a dependency is not ready, when it can be said (additive: the booleans stay). */
  reasons?: { database?: string; temporal?: string };
}

/**
 * What "ready to serve" means for an api process, on both transports: PostgreSQL answers a query
 * and accepts new sessions (pool-health.ts), and the Temporal frontend answers. `/readyz` reports
 * it and gRPC health follows it.
 * Temporal is ready only when its namespace also has the search attributes the workflows set:
 * without them every start is refused (temporal/search-attribute-watch.ts).
 */
export async function checkReadiness(ctx: Pick<AppContext, 'db' | 'whyTemporalNotReady'>): Promise<Readiness> {
  const [whyNotDatabase, whyNotTemporal] = await Promise.all([
    // A query on an idle pooled connection is not enough: the pool must be able to open more.
    ctx.db.raw('SELECT 1').then(
      () => whyPoolCannotConnect(ctx.db),
      (err: unknown) => whyNoSession(err),
    ),
    ctx.whyTemporalNotReady().catch(() => 'the Temporal check failed'),
  ]);
  const [database, temporal] = [whyNotDatabase === undefined, whyNotTemporal === undefined];
  const reasons = {
    ...(whyNotDatabase !== undefined && { database: whyNotDatabase }),
    ...(whyNotTemporal !== undefined && { temporal: whyNotTemporal }),
  };
  return { ready: database && temporal, database, temporal, ...(Object.keys(reasons).length > 0 && { reasons }) };
}
