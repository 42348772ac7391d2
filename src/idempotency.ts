import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { Knex } from 'knex';
import type { Caller } from './auth/api-keys.js';
import { AppError, invalid } from './errors.js';

/**
 * `Idempotency-Key` as Stripe does it: a key names ONE request of a tenant for 24 h. A retry of
 * that request gets the first answer again; the same key with another request (another operation,
 * another body) is refused with 422 `idempotency_key_reused` instead of silently answering for
 * the first one and dropping the second.
 */
export interface IdempotencyScope {
  tenantId: number;
  keyHash: string;
  requestHash: string;
}

const TTL_HOURS = 24;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Undefined without a key. The request is hashed with sorted keys: the same JSON in another key order is the same request. */
export function idempotencyScope(
  caller: Pick<Caller, 'tenantId'>,
  key: string | undefined,
  request: unknown,
): IdempotencyScope | undefined {
  if (key === undefined) return undefined;
  if (key.length < 1 || key.length > 200)
    throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 200 characters');
  return { tenantId: caller.tenantId, keyHash: sha256(key), requestHash: sha256(stableStringify(request ?? null)) };
}

/**
 * Serialises twins with the same key until the caller's transaction ends, and answers the stored
 * response of an earlier identical request (undefined when there is none, or it is older than
 * 24 h, in which case the key is forgotten and reused).
 */
export async function lockIdempotencyKey(trx: Knex.Transaction, scope: IdempotencyScope, now: Date): Promise<unknown> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`${scope.tenantId}:${scope.keyHash}`]);
  const previous = await trx('idempotency_keys').where({ tenant_id: scope.tenantId, key: scope.keyHash }).first();
  if (!previous) return undefined;
  if (previous.created_at.getTime() <= now.getTime() - TTL_HOURS * 3_600_000) {
    await trx('idempotency_keys').where({ tenant_id: scope.tenantId, key: scope.keyHash }).delete();
    return undefined;
  }
  // Keys stored before request hashes were kept (NULL) replay as they always did.
  if (previous.request_hash !== null && previous.request_hash !== scope.requestHash) {
    throw new AppError(
      'idempotency_key_reused',
      'this Idempotency-Key was already used for a different request in the last 24 hours; use a new key for a new request',
      'Idempotency-Key',
    );
  }
  return previous.response;
}

export async function rememberAnswer(trx: Knex.Transaction, scope: IdempotencyScope, response: unknown): Promise<void> {
  await trx('idempotency_keys').insert({
    tenant_id: scope.tenantId,
    key: scope.keyHash,
    request_hash: scope.requestHash,
    response,
  });
}

/**
 * Deletes the answers older than the 24 h a key lives (they would be forgotten on the key's next
 * use anyway). Run by the worker's sweep: a rotation's answer holds the new secret, sealed, and
 * must not outlive its key.
 */
export async function forgetExpiredKeys(db: Knex): Promise<number> {
  return db('idempotency_keys')
    .where('created_at', '<', db.raw(`now() - interval '${TTL_HOURS} hours'`))
    .delete();
}
