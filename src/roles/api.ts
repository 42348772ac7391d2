import type { Server } from 'node:http';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import type { SearchAttributeWatch } from '../temporal/search-attribute-watch.js';
import type { SecretSealer } from '../webhooks/manage-webhooks.js';
import type { AppContext } from '../app.js';
import type { UserHasher } from '../user-hash.js';
import { AUTH_FAILURE_WINDOW_MS, AuthFailureLimiter } from '../auth/failure-limiter.js';
import { compileTrustedProxies } from '../transport/edge.js';
import { KEY_CACHE_TTL_MS, KeyCache, listenForRevocations } from '../auth/key-cache.js';
import type { KnownKey } from '../auth/api-keys.js';
import { LastUsed } from '../auth/last-used.js';
import { createHttpServer } from '../transport/http/server.js';
import { startGrpcServer } from '../transport/grpc/server.js';
import { compactProfileCounts } from '../profiles/profile-counts.js';
import { createEmbedder } from '../analysis/embedder.js';
import { instrumentEmbedder } from '../metrics/embedder.js';
import { MODEL_THREAD_NICE_STEPS, workerNice } from '../fairness/niceness.js';
import { TenantRequests } from '../fairness/tenant-requests.js';

export async function startApi(deps: {
  config: Config;
  db: Db;
  databaseUrl: string;
  starters: Starters;
  box: SecretSealer;
  userHash: UserHasher;
  log: Logger;
  client: Client;
  /** The namespace's search attributes, checked from the start (temporal/search-attribute-watch.ts). */
  searchAttributes: SearchAttributeWatch;
}) {
  const { config, client } = deps;
  const keyCache = new KeyCache<KnownKey>(KEY_CACHE_TTL_MS);
  const revocations = listenForRevocations({ databaseUrl: deps.databaseUrl, cache: keyCache, log: deps.log });
  const ctx: AppContext = {
    ...deps,
    // Counted in PostgreSQL too: behind a load balancer a client's failures reach every api process.
    authFailures: new AuthFailureLimiter({
      limit: config.authFailureLimit,
      windowMs: AUTH_FAILURE_WINDOW_MS,
      db: deps.db,
    }),
    trustProxy: compileTrustedProxies(config.trustedProxies),
    keyCache,
    lastUsed: new LastUsed(deps.db, deps.log),
    tenantRequests: new TenantRequests(config.tenantRequestsInFlight),
    // One model thread, started on the first rule with semantic conditions. It runs as far below
    // the api's priority as the worker's model threads run below theirs' (niceness.ts), so that
    // the api's embedding never goes before a tenant's analysis on a shared machine.
    ruleEmbedder: instrumentEmbedder(
      createEmbedder({
        ...config.embeddings,
        threads: 1,
        threadNiceOffset: Math.min(19, workerNice(config.fairnessOff) + MODEL_THREAD_NICE_STEPS),
      }),
    ),
    whyTemporalNotReady: async () => {
      try {
        await client.connection.withDeadline(Date.now() + 2_000, () => client.workflowService.getSystemInfo({}));
      } catch {
        // Not the gRPC message: /readyz is unauthenticated, and that names internal addresses.
        return 'the Temporal frontend does not answer';
      }
      return deps.searchAttributes.problem();
    },
  };
  const http = createHttpServer(ctx);
  const httpPort = await new Promise<number>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.http.port, config.http.host, () => resolve((http.address() as { port: number }).port));
  });
  const grpc = await startGrpcServer(ctx);
  // The count triggers append delta rows; folding them keeps the exact `total` cheap. Any api
  // process may do it (an advisory lock lets one at a time), and a failure only delays it.
  let compacting: Promise<unknown> = Promise.resolve();
  const compactor = setInterval(() => {
    compacting = compactProfileCounts(deps.db).catch((err: Error) =>
      deps.log.warn('profile count compaction failed', { err: err.message }),
    );
  }, 10_000);
  return {
    httpPort,
    grpcPort: grpc.port,
    async stop() {
      clearInterval(compactor);
      await compacting;
      await revocations.stop();
      await grpc.stop();
      await closeHttp(http);
    },
  };
}

function closeHttp(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  });
}
