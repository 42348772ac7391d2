import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stack } from '../support/api.js';
import { checkedFetch } from '../support/contract.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';

/**
 * An api-only instance whose database belongs to an ordinary role (a superuser is exempt from
 * connection limits), with a pool of 4 connections and 2 requests in flight per tenant, so that
 * the pool and the tenant bound can be filled on purpose: by a lock the test holds, and by a
 * connection limit on the role.
 */
const DB = 'pressure_e2e';
const ROLE = 'pressure_app';
const POOL = 4;
const PER_TENANT = 2;

let inst: Instance;
/** A superuser on the server (roles, pg_stat_activity), and one on the instance's database (locks). */
let admin: pg.Client;
let locker: pg.Client;

async function tenant(name: string): Promise<{ key: string; projectId: number }> {
  const key = (await inst.call('POST', '/admin/v1/tenants', { body: { name } })).body.api_key as string;
  const projectId = (await inst.call('POST', '/api/v1/projects', { key, body: { name } })).body.id as number;
  return { key, projectId };
}

async function get(path: string, key?: string) {
  const res = await checkedFetch(inst.base, path, { headers: key ? { 'X-API-Key': key } : {} });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** Sessions of the instance's role that wait for a lock. */
const waitingOnLock = async () =>
  (
    await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`,
      [ROLE],
    )
  ).rows[0].n as number;

describe('database pressure', () => {
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: stack().databaseUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${ROLE}'`);
    const url = new URL(await createDatabase(DB));
    await admin.query(`ALTER DATABASE ${DB} OWNER TO ${ROLE}`);
    locker = new pg.Client({ connectionString: url.toString() });
    await locker.connect();
    url.username = ROLE;
    url.password = ROLE;
    inst = await startInstance(url.toString(), 'pressure', {
      role: 'api',
      env: { DATABASE_POOL_MAX: String(POOL), TENANT_REQUESTS_IN_FLIGHT: String(PER_TENANT) },
    });
  }, 180_000);

  afterAll(async () => {
    await locker?.end();
    await inst?.stop();
    await dropDatabase(DB).catch(() => undefined);
    await admin?.query(`DROP ROLE IF EXISTS ${ROLE}`).catch(() => undefined);
    await admin?.end();
  });

  it("one tenant's burst of reads is bounded (429 with Retry-After), and another tenant is served meanwhile", async () => {
    const hostile = await tenant('hostile');
    const victim = await tenant('victim');
    // Every profile read waits on this lock: the hostile tenant's reads hold what they took.
    await locker.query('BEGIN');
    try {
      await locker.query(`SET LOCAL lock_timeout = '60s'`);
      await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const burst = Promise.all(
        Array.from({ length: 100 }, () =>
          get(`/api/v1/profiles?project_id=${hostile.projectId}&limit=100`, hostile.key),
        ),
      );
      await expect.poll(waitingOnLock, { timeout: 30_000, interval: 100 }).toBe(PER_TENANT);
      // Before the bound, the burst held every pooled connection and the victim waited for a 503.
      const victimRead = await get('/api/v1/projects', victim.key);
      expect(victimRead.status).toBe(200);
      expect(victimRead.body.projects).toHaveLength(1);
      expect(await waitingOnLock()).toBe(PER_TENANT);
      await locker.query('COMMIT');
      const answers = await burst;
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(PER_TENANT);
      const limited = answers.filter((a) => a.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      for (const a of limited) {
        expect(a.retryAfter).toBe('1');
        expect(a.body.error.code).toBe('rate_limited');
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
    }
  });

  it('a pool with no connection free in time answers 503 "busy" with Retry-After, not "database unavailable"', async () => {
    // Three tenants, two reads each: six requests for four connections, all waiting on the lock.
    const tenants = await Promise.all(['busy-a', 'busy-b', 'busy-c'].map(tenant));
    await locker.query('BEGIN');
    try {
      await locker.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const settled: Awaited<ReturnType<typeof get>>[] = [];
      const reads = tenants.flatMap((t) =>
        [0, 1].map(() => get(`/api/v1/profiles?project_id=${t.projectId}`, t.key).then((a) => (settled.push(a), a))),
      );
      await expect.poll(waitingOnLock, { timeout: 30_000, interval: 100 }).toBe(POOL);
      // The two without a connection give up after the pool's acquire timeout, the lock still held.
      await expect.poll(() => settled.length, { timeout: 30_000, interval: 100 }).toBe(6 - POOL);
      for (const a of settled) {
        expect(a.status).toBe(503);
        expect(a.retryAfter).toBe('2');
        expect(a.body.error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('busy') });
      }
      await locker.query('COMMIT');
      expect((await Promise.all(reads)).filter((a) => a.status === 200)).toHaveLength(POOL);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
    }
  });

  it('PostgreSQL refusing sessions (class 53) is 503 with Retry-After, never 500; /readyz notices and recovers', async () => {
    const tenants = await Promise.all(Array.from({ length: 10 }, (_, i) => tenant(`refused-${i}`)));
    expect((await get('/readyz')).status).toBe(200);
    // As the probe found it: the pool keeps one idle session (which answers /readyz's query), and
    // PostgreSQL refuses every new one for the role.
    const { rows } = await admin.query<{ pid: number; query: string }>(
      `SELECT pid, query FROM pg_stat_activity WHERE usename = $1 AND datname = $2`,
      [ROLE, DB],
    );
    const pooled = rows.filter((r) => !r.query.startsWith('LISTEN'));
    expect(pooled.length).toBeGreaterThan(0);
    await admin.query(`ALTER ROLE ${ROLE} CONNECTION LIMIT ${rows.length - pooled.length + 1}`);
    for (const r of pooled.slice(1)) await admin.query('SELECT pg_terminate_backend($1)', [r.pid]);
    try {
      const submit = (t: { key: string; projectId: number }, i: number) =>
        checkedFetch(inst.base, '/api/v1/users', {
          method: 'POST',
          headers: { 'X-API-Key': t.key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ project_id: t.projectId, users: [{ user_id: `u${i}`, text: 'Hello there.' }] }),
        });
      const answers = await Promise.all(tenants.flatMap((t) => [0, 1].map((i) => submit(t, i))));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 202 && s !== 503)).toEqual([]);
      const refused = await Promise.all(
        answers
          .filter((a) => a.status === 503)
          .map(async (a) => ({ retryAfter: a.headers.get('retry-after'), error: (await a.json()).error })),
      );
      for (const a of refused) {
        expect(a.retryAfter).toBe('5');
        expect(a.error.code).toBe('unavailable');
      }
      // A session terminated under a request says "unavailable"; the refused creations say why.
      expect(refused.filter((a) => a.error.message.includes('refusing new connections')).length).toBeGreaterThan(0);
      const ready = await get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.database).toBe(false);
      expect(ready.body.reasons.database).toBe('PostgreSQL refuses new sessions (SQLSTATE 53300)');
    } finally {
      await admin.query(`ALTER ROLE ${ROLE} CONNECTION LIMIT -1`);
    }
    await expect.poll(async () => (await get('/readyz')).status, { timeout: 30_000, interval: 500 }).toBe(200);
  });
});
