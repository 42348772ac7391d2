import type { Db } from './db/knex.js';
import type { KeyCache } from './auth/key-cache.js';
import type { KnownKey } from './auth/api-keys.js';
import type { LastUsed } from './auth/last-used.js';
import type { AuthFailureLimiter } from './auth/failure-limiter.js';
import type { Config } from './config.js';
import type { Logger } from './observability/logger.js';
import type { Starters } from './temporal/starters.js';
import type { SecretSealer } from './webhooks/manage-webhooks.js';
import type { Embedder } from './analysis/embedder.js';
import type { TenantRequests } from './fairness/tenant-requests.js';
import type { UserHasher } from './user-hash.js';

/** What the transports need: the use cases take these as their dependencies. */
export interface AppContext {
  config: Config;
  db: Db;
  starters: Starters;
  box: SecretSealer;
  /** Keyed hash of a project's user id, for suppressions and the erasure audit (privacy/user-hash.ts). */
  userHash: UserHasher;
  log: Logger;
  /** Shared by the gateway and gRPC: one failed-authentication budget per client address. */
  authFailures: AuthFailureLimiter;
  /** Peers whose X-Forwarded-For names the client (TRUSTED_PROXIES; see transport/edge.ts). */
  /** Which peers are trusted proxies (TRUSTED_PROXIES, compiled by transport/client-address.ts). */
  trustProxy: (address: string, hop: number) => boolean;
  /** Valid keys for a few seconds, emptied by every revocation (see auth/key-cache.ts). */
  keyCache?: KeyCache<KnownKey>;
  /** Writes each key's last use at most once a minute (auth/last-used.ts). */
  lastUsed?: LastUsed;
  /** Embeds a rule's semantic conditions when a segment is created or its rule changes. */
  ruleEmbedder: Embedder;
  /** Each tenant's requests in flight in this process (TENANT_REQUESTS_IN_FLIGHT; fairness/tenant-requests.ts). */
  tenantRequests: TenantRequests;
  /** Undefined when the Temporal frontend answers and the namespace has our search attributes, else why not. */
  whyTemporalNotReady: () => Promise<string | undefined>;
}
