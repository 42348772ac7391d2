import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFailureLimiter } from '../../src/auth/failure-limiter.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { testDatabaseUrl } from '../support/database.js';

/** Two api processes behind a load balancer share one budget of failed authentications per address. */
describe('failed authentications counted across api processes', () => {
  let one: Db;
  let two: Db;
  const address = `10.${randomInt(255)}.${randomInt(255)}.${randomInt(255)}`;

  beforeAll(() => {
    one = createDb(testDatabaseUrl(), 2);
    two = createDb(testDatabaseUrl(), 2);
  });
  afterAll(async () => {
    await one('auth_failures').where('client', 'like', `${address}|%`).delete();
    await Promise.all([one.destroy(), two.destroy()]);
  });

  it('refuses the failure over the limit whichever process it reaches', async () => {
    const a = new AuthFailureLimiter({ limit: 5, windowMs: 60_000, db: one });
    const b = new AuthFailureLimiter({ limit: 5, windowMs: 60_000, db: two });
    for (let i = 0; i < 3; i++) expect(await a.fail(address)).toBe(0);
    for (let i = 0; i < 2; i++) expect(await b.fail(address)).toBe(0);
    // Each process alone has seen at most 3 of the 5: only the shared bucket is empty.
    expect(await b.fail(address)).toBe(12); // one token every 12 s
    expect(await a.fail(address)).toBe(12);
    // Another address is not affected.
    expect(await a.fail(`${address}9`)).toBe(0);
    await one('auth_failures').where('client', 'like', `${address}9|%`).delete();
    // A process with another limit keeps a bucket of its own.
    const c = new AuthFailureLimiter({ limit: 50, windowMs: 60_000, db: one });
    expect(await c.fail(address)).toBe(0);
  });
});
