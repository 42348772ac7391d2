import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/knex.js';
import { AppError } from '../errors.js';
import type { AuthFailureLimiter } from './failure-limiter.js';
import type { KeyCache } from './key-cache.js';

export interface Caller {
  tenantId: number;
  /** The key's first 8 characters, as stored and listed (audit trails name the key by it). */
  keyPrefix?: string;
}

/** `sps_` + 32 random bytes; only its SHA-256 is stored. */
export function generateApiKey(): string {
  return `sps_${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_SHAPE = /^sps_[A-Za-z0-9_-]{43}$/;

export async function authenticate(db: Db, apiKey: string | undefined, cache?: KeyCache): Promise<Caller> {
  if (!apiKey)
    throw new AppError('unauthenticated', 'missing API key (HTTP header X-API-Key, gRPC metadata x-api-key)');
  // A malformed key cannot exist: refuse it without a database round trip.
  if (!KEY_SHAPE.test(apiKey)) throw new AppError('unauthenticated', 'invalid API key');
  const hash = hashApiKey(apiKey);
  const cached = cache?.get(hash);
  if (cached !== undefined) return { tenantId: cached, keyPrefix: apiKey.slice(0, 8) };
  const generation = cache?.begin() ?? 0;
  const { rows } = await db.raw('SELECT tenant_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', [hash]);
  if (rows.length === 0) throw new AppError('unauthenticated', 'invalid API key');
  const tenantId = Number(rows[0].tenant_id);
  cache?.set(hash, tenantId, generation);
  return { tenantId, keyPrefix: apiKey.slice(0, 8) };
}

/**
 * `authenticate` for a client at `address`: each failure is counted, and a client over its limit
 * gets `rate_limited` (429 / RESOURCE_EXHAUSTED with Retry-After) instead of `unauthenticated`.
 * The key is still checked first, so a valid key is served from a limited address too.
 */
export async function authenticateClient(
  deps: { db: Db; authFailures: AuthFailureLimiter; keyCache?: KeyCache },
  address: string | undefined,
  apiKey: string | undefined,
): Promise<Caller> {
  try {
    return await authenticate(deps.db, apiKey, deps.keyCache);
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
