import type { Db } from '../db/knex.js';
import { invalid, notFound } from '../errors.js';
import { hashApiKey } from './api-keys.js';
import { REVOKED_CHANNEL } from './key-cache.js';
import { recordAdminKeyEvent } from './key-events.js';

export interface RevokedKey {
  tenant_id: number;
  prefix: string;
  revoked_at: string;
}

/**
 * Revokes one API key, given in clear (an operator holds the leaked key, or the customer hands
 * it over). The row stays, with `revoked_at`, so the revocation is auditable; the key is refused
 * from the next request on. An unknown or already revoked key is 404.
 */
export async function revokeApiKey(db: Db, input: { apiKey: string }): Promise<RevokedKey> {
  const key = input.apiKey;
  if (key.length === 0 || key.length > 200) throw invalid('api_key', 'api_key must be 1 to 200 characters');
  // The notification goes out only if the revocation commits; every api process then empties its key cache.
  const row = await db.transaction(async (trx) => {
    const [updated] = await trx('api_keys')
      .where({ key_hash: hashApiKey(key) })
      .whereNull('revoked_at')
      .update({ revoked_at: trx.fn.now() })
      .returning(['tenant_id', 'uid', 'prefix', 'name', 'revoked_at']);
    if (updated) {
      await recordAdminKeyEvent(trx, Number(updated.tenant_id), 'revoked', updated);
      await trx.raw('SELECT pg_notify(?, ?)', [REVOKED_CHANNEL, '']);
    }
    return updated;
  });
  if (!row) throw notFound('API key');
  return {
    tenant_id: Number(row.tenant_id),
    prefix: row.prefix as string,
    revoked_at: new Date(row.revoked_at as string | Date).toISOString(),
  };
}
