import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { authenticate, FULL_ACCESS, generateApiKey, hashApiKey, type KnownKey } from '../../src/auth/api-keys.js';
import { KeyCache, listenForRevocations, REVOKED_CHANNEL } from '../../src/auth/key-cache.js';
import { revokeApiKey } from '../../src/auth/revoke-api-key.js';
import { createLogger } from '../../src/observability/logger.js';
import { waitFor } from '../support/api.js';
import { testDatabaseUrl } from '../support/database.js';

/** A second key for an existing tenant, stored as create-tenant stores the first. */
async function issueApiKey(db: Db, tenantId: number): Promise<string> {
  const key = generateApiKey();
  await db('api_keys').insert({
    tenant_id: tenantId,
    key_hash: hashApiKey(key),
    prefix: key.slice(0, 8),
    name: 'second',
    scopes: FULL_ACCESS.scopes,
  });
  return key;
}

/**
 * Two api processes' key caches on the real database: a revocation made through one process (or
 * any other client of the database) is refused by both from the next request, not after the TTL.
 */
describe('API key cache', () => {
  let db: Db;
  let tenantId = 0;
  const caches = [new KeyCache<KnownKey>(60_000), new KeyCache<KnownKey>(60_000)];
  const PROBE: KnownKey = { caller: { tenantId: 0, ...FULL_ACCESS }, lastUsedAt: null };
  const listeners: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 4);
    const [tenant] = await db('tenants').insert({ name: 'key-cache' }).returning('id');
    tenantId = Number(tenant.id);
    for (const cache of caches)
      listeners.push(listenForRevocations({ databaseUrl: testDatabaseUrl(), cache, log: createLogger('silent') }));
    await waitFor(
      'both caches listening',
      async () => caches.every((c) => (c.set('probe', PROBE, c.begin()), c.get('probe') === PROBE)),
      10_000,
      50,
    );
  });

  afterAll(async () => {
    for (const l of listeners) await l.stop();
    await db.destroy();
  });

  it('serves a valid key from the cache and refuses it everywhere once revoked', async () => {
    const key = await issueApiKey(db, tenantId);
    for (const cache of caches)
      expect(await authenticate(db, key, cache)).toMatchObject({ tenantId, keyPrefix: key.slice(0, 8) });
    // Cached: the lookups no longer reach the database (the row is gone, the answer stays).
    await db('api_keys').where({ tenant_id: tenantId }).update({ key_hash: 'moved' });
    for (const cache of caches)
      expect(await authenticate(db, key, cache)).toMatchObject({ tenantId, keyPrefix: key.slice(0, 8) });
    await db('api_keys')
      .where({ tenant_id: tenantId })
      .update({ key_hash: hashApiKey(key) });

    await revokeApiKey(db, { apiKey: key });
    await waitFor(
      'both caches emptied',
      async () => {
        const refused = await Promise.all(
          caches.map((c) =>
            authenticate(db, key, c).then(
              () => false,
              () => true,
            ),
          ),
        );
        return refused.every(Boolean);
      },
      5_000,
      10,
    );
  });

  it('stops serving from the cache when the database ends its LISTEN session', async () => {
    const key = await issueApiKey(db, tenantId);
    const cache = caches[0];
    await authenticate(db, key, cache);
    // The database ends the listening sessions (a restart, a failover, an idle-session killer).
    const { rows } = await db.raw(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = 'LISTEN ${REVOKED_CHANNEL}'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(2); // both caches' sessions
    await waitFor(
      'cache off',
      async () =>
        cache.get('probe') === undefined &&
        (cache.set('probe', PROBE, cache.begin()), cache.get('probe') === undefined),
      5_000,
      10,
    );
    // Revoked behind the cache's back (no notification reaches it now): the next request is refused.
    await db('api_keys').where({ tenant_id: tenantId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
    await expect(authenticate(db, key, cache)).rejects.toThrow(/invalid API key/);
  });
});
