import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/knex.js';
import { AppError } from '../errors.js';
import type { AuthFailureLimiter } from './failure-limiter.js';
import type { KeyCache } from './key-cache.js';
import { isScope, SCOPES, type Scope } from './scopes.js';
import type { LastUsed } from './last-used.js';

export interface Caller {
  tenantId: number;
  /** The key's first 8 characters, as stored and listed (audit trails name the key by it). */
  keyPrefix?: string;
  /** The key's public id (api_keys.uid), as listed and revoked. */
  keyId?: string;
  /** What the key may do (scopes.ts); every operation checks the one it needs. */
  scopes: readonly Scope[];
  /**
   * The projects the key is limited to, or null for all of the tenant's. Any other project is
   * answered exactly as one that does not exist (projects/projects.ts `canReach`).
   */
  projects: readonly number[] | null;
  /** When the key stops working; null: never. */
  expiresAt: Date | null;
}

/** Every scope, on no project limit: what the operator's first key of a tenant holds. */
export const FULL_ACCESS = { scopes: SCOPES, projects: null, expiresAt: null } as const;

/** `sps_` + 32 random bytes; only its SHA-256 is stored. */
export function generateApiKey(): string {
  return `sps_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_SHAPE = /^sps_[A-Za-z0-9_-]{43}$/;

/** A key as the cache keeps it: the caller it authenticates, and when its use was last written. */
export interface KnownKey {
  caller: Caller;
  lastUsedAt: Date | null;
}

export async function authenticate(
  db: Db,
  apiKey: string | undefined,
  cache?: KeyCache<KnownKey>,
  lastUsed?: LastUsed,
): Promise<Caller> {
  if (!apiKey)
    throw new AppError('unauthenticated', 'missing API key (HTTP header X-API-Key, gRPC metadata x-api-key)');
  // A malformed key cannot exist: refuse it without a database round trip.
  if (!KEY_SHAPE.test(apiKey)) throw new AppError('unauthenticated', 'invalid API key');
  const hash = hashApiKey(apiKey);
  let known = cache?.get(hash);
  if (known === undefined) {
    const generation = cache?.begin() ?? 0;
    const { rows } = await db.raw(
      `SELECT tenant_id, uid, prefix, scopes, project_ids, expires_at, last_used_at
         FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`,
      [hash],
    );
    if (rows.length === 0) throw new AppError('unauthenticated', 'invalid API key');
    known = knownKey(rows[0]);
    cache?.set(hash, known, generation);
  }
  const { caller } = known;
  // Checked at every use, cached or not: an expired key stops at its second, in every process.
  if (caller.expiresAt && caller.expiresAt.getTime() <= Date.now()) {
    throw new AppError('unauthenticated', 'API key expired');
  }
  lastUsed?.used(known);
  return caller;
}

function knownKey(row: Record<string, unknown>): KnownKey {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date));
  return {
    caller: {
      tenantId: Number(row.tenant_id),
      keyPrefix: row.prefix as string,
      keyId: row.uid as string,
      // A scope this code does not know (a newer release's, after a rollback) is held as nothing.
      scopes: (row.scopes as string[]).filter(isScope),
      projects: row.project_ids === null ? null : (row.project_ids as (string | number)[]).map(Number),
      expiresAt: date(row.expires_at),
    },
    lastUsedAt: date(row.last_used_at),
  };
}

/**
 * `authenticate` for a client at `address`: each failure is counted, and a client over its limit
 * gets `rate_limited` (429 / RESOURCE_EXHAUSTED with Retry-After) instead of `unauthenticated`.
 * The key is still checked first, so a valid key is served from a limited address too.
 */
export async function authenticateClient(
  deps: { db: Db; authFailures: AuthFailureLimiter; keyCache?: KeyCache<KnownKey>; lastUsed?: LastUsed },
  address: string | undefined,
  apiKey: string | undefined,
): Promise<Caller> {
  try {
    return await authenticate(deps.db, apiKey, deps.keyCache, deps.lastUsed);
  } catch (err) {
    if (err instanceof AppError && err.code === 'unauthenticated')
      throw await limitedOr(deps.authFailures, address, err);
    throw err;
  }
}

/** Counts a failed authentication of `address`: `err` while within the limit, else a rate_limited error. */
export async function limitedOr(
  limiter: AuthFailureLimiter,
  address: string | undefined,
  err: AppError,
): Promise<AppError> {
  const wait = await limiter.fail(address);
  if (wait === 0) return err;
  return new AppError(
    'rate_limited',
    `too many failed authentications from this address; retry in ${wait} s`,
    undefined,
    wait,
  );
}
