import pg from 'pg';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';

/**
 * A key's life across two api processes of one installation (their own database, no worker):
 * made on one, used on both, revoked on one and refused by the other within the wait below (5 s,
 * half the 10 s its cache would otherwise keep it: only the revocation's notification can explain
 * it); an expiring key refused by both from its second on; `last_used_at` kept without a write per
 * request.
 */
const DB = 'key_lifecycle_e2e';

describe('API key lifecycle on two api processes', () => {
  let one: Instance;
  let two: Instance;
  let db: pg.Client;
  let adminKey: string;

  beforeAll(async () => {
    const url = await createDatabase(DB);
    one = await startInstance(url, 'key-lifecycle', { role: 'api' });
    two = await startInstance(url, 'key-lifecycle', { role: 'api' });
    db = new pg.Client({ connectionString: url });
    await db.connect();
    const t = await one.call('POST', '/admin/v1/tenants', { body: { name: 'key lifecycle' } });
    expect(t.status).toBe(201);
    adminKey = t.body.api_key;
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all([one?.stop(), two?.stop()]);
    await dropDatabase(DB).catch(() => undefined);
  });

  const works = async (inst: Instance, key: string) => (await inst.call('GET', '/api/v1/projects', { key })).status;

  it('refuses a key revoked on one process on the other at once, over HTTP and gRPC', async () => {
    const made = await one.call('POST', '/api/v1/api-keys', {
      key: adminKey,
      body: { name: 'rotated away', scopes: ['ingest'] },
    });
    expect(made.status).toBe(201);
    const key = made.body.api_key;
    // Used on both, twice: each process has it in its cache now.
    for (let i = 0; i < 2; i++) for (const inst of [one, two]) expect(await works(inst, key)).toBe(200);
    const clients = grpcClients(two.grpcAddress);
    try {
      await rpc(clients.keys, 'getCurrentApiKey', {}, keyMetadata(key));
      // The replacement first, then the revocation: no moment without a working key.
      const next = await one.call('POST', '/api/v1/api-keys', {
        key: adminKey,
        body: { name: 'the replacement', scopes: ['ingest'] },
      });
      expect(next.status).toBe(201);
      expect(await works(two, next.body.api_key)).toBe(200);
      const revoked = await one.call('DELETE', `/api/v1/api-keys/${made.body.id}`, { key: adminKey });
      expect(revoked.status).toBe(204);
      await waitFor(
        'the second process refuses the revoked key',
        async () => (await works(two, key)) === 401,
        5_000,
        20,
      );
      const err = await rpc(clients.keys, 'getCurrentApiKey', {}, keyMetadata(key)).catch((e) => e);
      expect(err.code).toBe(status.UNAUTHENTICATED);
      expect(await works(one, key)).toBe(401);
      expect(await works(two, next.body.api_key)).toBe(200);
      // Revoked once: a second revocation finds nothing.
      expect((await two.call('DELETE', `/api/v1/api-keys/${made.body.id}`, { key: adminKey })).status).toBe(404);
    } finally {
      for (const c of Object.values(clients)) c.close();
    }
  });

  it('makes no key for a key revoked while its process still trusts it', async () => {
    const made = await one.call('POST', '/api/v1/api-keys', {
      key: adminKey,
      body: { name: 'about to go', scopes: ['keys', 'ingest'] },
    });
    const key = made.body.api_key;
    expect(await works(one, key)).toBe(200);
    // Revoked behind the cache's back (no notification): the process still serves reads with it
    // for a few seconds, but a key it makes would outlive the revocation.
    await db.query('UPDATE api_keys SET revoked_at = now() WHERE uid = $1', [made.body.id]);
    const child = await one.call('POST', '/api/v1/api-keys', { key, body: { name: 'child', scopes: ['ingest'] } });
    expect(child.status).toBe(401);
    const count = await db.query("SELECT count(*)::int AS n FROM api_keys WHERE name = 'child'");
    expect(count.rows[0].n).toBe(0);
  });

  it('refuses an expired key on both processes', async () => {
    const made = await one.call('POST', '/api/v1/api-keys', {
      key: adminKey,
      body: { name: 'short-lived', scopes: ['ingest'], expires_at: new Date(Date.now() + 3_000).toISOString() },
    });
    expect(made.status).toBe(201);
    const key = made.body.api_key;
    for (const inst of [one, two]) expect(await works(inst, key)).toBe(200);
    await waitFor('the key expired', async () => Date.now() > Date.parse(made.body.expires_at), 10_000, 100);
    for (const inst of [one, two]) {
      const res = await inst.call('GET', '/api/v1/projects', { key });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/expired/);
    }
  });

  it('moves last_used_at with use, without a write per request', async () => {
    const made = await one.call('POST', '/api/v1/api-keys', {
      key: adminKey,
      body: { name: 'watched', scopes: ['ingest'] },
    });
    const key = made.body.api_key;
    const lastUsed = async () =>
      (await db.query('SELECT last_used_at FROM api_keys WHERE uid = $1', [made.body.id])).rows[0]
        .last_used_at as Date | null;
    expect(made.body.last_used_at).toBeNull();
    expect(await lastUsed()).toBeNull();
    expect(await works(one, key)).toBe(200);
    const first = (await waitFor('the first use recorded', lastUsed, 5_000, 20))!;
    // Twenty more uses on both processes within the minute: the stored time stays (no write each).
    for (let i = 0; i < 10; i++) for (const inst of [one, two]) expect(await works(inst, key)).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect((await lastUsed())!.getTime()).toBe(first.getTime());
    // Listed as the API shows it.
    const listed = (await one.call('GET', '/api/v1/api-keys', { key: adminKey })).body.keys.find(
      (k: { id: string }) => k.id === made.body.id,
    );
    expect(Date.parse(listed.last_used_at)).toBe(first.getTime());
    // Two minutes later (set back in the row, and the process's cache emptied by a revocation of
    // another key), the next use moves it.
    await db.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE uid = $1`, [made.body.id]);
    const spare = await one.call('POST', '/api/v1/api-keys', {
      key: adminKey,
      body: { name: 'spare', scopes: ['ingest'] },
    });
    await one.call('DELETE', `/api/v1/api-keys/${spare.body.id}`, { key: adminKey });
    const setBack = (await lastUsed())!.getTime();
    await waitFor(
      'the use two minutes later recorded',
      async () => (await works(two, key)) === 200 && (await lastUsed())!.getTime() > setBack + 60_000,
      5_000,
      50,
    );
  });
});
