import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { leaseSlots, releaseSlots } from '../../src/fairness/delivery-slots.js';
import { testDatabaseUrl } from '../support/database.js';

/** The in-flight bounds across delivery workers (issue 25): two pools stand for two processes. */
describe('delivery slots leased in PostgreSQL', () => {
  let one: Db;
  let two: Db;
  const run = randomUUID().slice(0, 8);
  const keys = (webhook: string, tenant: string, wb = 4, tb = 16) =>
    [
      { key: `webhook:${run}-${webhook}`, bound: wb },
      { key: `tenant:${run}-${tenant}`, bound: tb },
    ] as [{ key: string; bound: number }, { key: string; bound: number }];

  beforeAll(() => {
    one = createDb(testDatabaseUrl(), 10);
    two = createDb(testDatabaseUrl(), 10);
  });
  afterAll(async () => {
    await one('delivery_slots').where('key', 'like', `%:${run}-%`).delete();
    await Promise.all([one.destroy(), two.destroy()]);
  });

  it('never lease more than a webhook bound, however many attempts race from two processes', async () => {
    const tries = await Promise.all(
      Array.from({ length: 40 }, (_, i) => leaseSlots(i % 2 ? one : two, keys('race', 'race-t'), 60_000)),
    );
    const held = tries.filter((h): h is string => h !== undefined);
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeLessThanOrEqual(4);
    const rows = await one('delivery_slots').where({ key: `webhook:${run}-race` });
    expect(rows.length).toBe(held.length);
    // Once full, a new attempt is refused; a release lets the next one in.
    for (let i = held.length; i < 4; i++) expect(await leaseSlots(one, keys('race', 'race-t'), 60_000)).toBeDefined();
    expect(await leaseSlots(two, keys('race', 'race-t'), 60_000)).toBeUndefined();
    await releaseSlots(one, held[0]);
    expect(await leaseSlots(two, keys('race', 'race-t'), 60_000)).toBeDefined();
    expect(await leaseSlots(two, keys('race', 'race-t'), 60_000)).toBeUndefined();
  });

  it('hold the tenant bound over its webhooks, and take nothing when one key is full', async () => {
    for (let w = 0; w < 3; w++) expect(await leaseSlots(one, keys(`t${w}`, 'tenant-b', 4, 3), 60_000)).toBeDefined();
    // Tenant full: the webhook's slot is not kept either.
    expect(await leaseSlots(two, keys('t3', 'tenant-b', 4, 3), 60_000)).toBeUndefined();
    expect(await one('delivery_slots').where({ key: `webhook:${run}-t3` })).toHaveLength(0);
  });

  it('free the slots of a lease that expired (a worker that died mid-attempt)', async () => {
    expect(await leaseSlots(one, keys('dead', 'dead-t', 1, 16), 1)).toBeDefined();
    // Until the 1 ms lease has run out by the database's clock, the one leases are judged by.
    await vi.waitFor(
      async () =>
        expect(
          await one('delivery_slots')
            .where({ key: `webhook:${run}-dead` })
            .where('expires_at', '>', one.fn.now()),
        ).toEqual([]),
      { timeout: 5_000, interval: 5 },
    );
    const next = await leaseSlots(two, keys('dead', 'dead-t', 1, 16), 60_000);
    expect(next).toBeDefined();
    expect(
      await one('delivery_slots')
        .where({ key: `webhook:${run}-dead` })
        .pluck('holder'),
    ).toEqual([next]);
  });
});

describe('the sweep of expired leases and buckets', () => {
  it('forgets leases an hour past their end and buckets untouched for a day, and nothing newer', async () => {
    const { forgetExpiredRows } = await import('../../src/webhooks/secret-sweep.js');
    const db = createDb(testDatabaseUrl(), 2);
    const tag = randomUUID().slice(0, 8);
    try {
      await db('delivery_slots').insert([
        {
          key: `webhook:sweep-${tag}-old`,
          slot: 0,
          holder: randomUUID(),
          expires_at: db.raw(`now() - interval '2 hours'`),
        },
        {
          key: `webhook:sweep-${tag}-new`,
          slot: 0,
          holder: randomUUID(),
          expires_at: db.raw(`now() - interval '1 minute'`),
        },
      ]);
      await db('auth_failures').insert([
        { client: `sweep-${tag}-old|20/60000`, tokens: 0, at: db.raw(`now() - interval '2 days'`) },
        { client: `sweep-${tag}-new|20/60000`, tokens: 0, at: db.raw(`now() - interval '1 hour'`) },
      ]);
      await forgetExpiredRows(db);
      expect(await db('delivery_slots').where('key', 'like', `webhook:sweep-${tag}-%`).pluck('key')).toEqual([
        `webhook:sweep-${tag}-new`,
      ]);
      expect(await db('auth_failures').where('client', 'like', `sweep-${tag}-%`).pluck('client')).toEqual([
        `sweep-${tag}-new|20/60000`,
      ]);
    } finally {
      await db('delivery_slots').where('key', 'like', `webhook:sweep-${tag}-%`).delete();
      await db('auth_failures').where('client', 'like', `sweep-${tag}-%`).delete();
      await db.destroy();
    }
  });
});
