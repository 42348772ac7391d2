import { existsSync, readFileSync, statSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitFor, waitForBatch, withDb, type Tenant } from '../support/api.js';
import { holdUserRow } from '../support/row-lock.js';
import { MAX_USER_ATTRIBUTE_BYTES, MAX_USER_ATTRIBUTES } from '../../src/ingest/attribute-bounds.js';

/**
 * What one tenant can make the service store per user (issue 34's probe grew one user to 9.6 MB of
 * attributes, 50 keys at a time), and user ids the profile routes could never reach.
 */
let t: Tenant;

/** `n` attributes named `<prefix>0..n-1`, each value `size` characters. */
const attrs = (prefix: string, n: number, size = 10) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v'.repeat(size)]));

const submit = (users: { user_id: string; text: string; attributes?: Record<string, unknown> }[]) =>
  call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });

const sources = () =>
  withDb(
    async (db) =>
      (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [t.projectId])).rows[0]
        .n as number,
  );

/**
 * PostgreSQL's own measure of attributes sent as the service sends them (JSON.stringify, then
 * jsonb): written here, not imported, so that the service's measure is checked against it.
 */
const pgWeight = (a: Record<string, unknown>) =>
  withDb(async (db) => {
    const { rows } = await db.query(
      `SELECT count(*)::int AS keys, coalesce(sum(octet_length(key) + octet_length(value::text)), 0)::int AS bytes
         FROM jsonb_each($1::jsonb)`,
      [JSON.stringify(a)],
    );
    return rows[0] as { keys: number; bytes: number };
  });

/** The user's stored attributes, and PostgreSQL's measure of the stored row. */
const stored = (userId: string) =>
  withDb(async (db) => {
    const { rows } = await db.query(
      `SELECT u.attributes, (SELECT coalesce(sum(octet_length(key) + octet_length(value::text)), 0)::int
                               FROM jsonb_each(u.attributes)) AS bytes
         FROM users u WHERE u.project_id = $1 AND u.user_id = $2`,
      [t.projectId, userId],
    );
    return rows[0] as { attributes: Record<string, unknown>; bytes: number } | undefined;
  });

/** The workers' logs (a stack may run one worker or two) and their lengths now. */
const logFiles = () => [stack().logs.worker, stack().logs.worker2].filter((f) => existsSync(f));
const logSizes = () => new Map(logFiles().map((f) => [f, statSync(f).size]));
/** The workers' log lines written since `from`. */
const logLinesSince = (from: Map<string, number>) =>
  logFiles().flatMap((f) =>
    readFileSync(f)
      .subarray(from.get(f) ?? 0)
      .toString('utf8')
      .split('\n'),
  );

describe('per-user bounds', () => {
  beforeAll(async () => {
    t = await newTenant('bounds');
  });

  it(`merged attributes: ${MAX_USER_ATTRIBUTES} keys are stored; one more is 422 naming users[i].attributes and stores nothing`, async () => {
    // Four messages of one user, 50 new keys each: exactly the bound once merged.
    const full = await submit(
      [0, 1, 2, 3].map((k) => ({ user_id: 'many-keys', text: 'Fine so far.', attributes: attrs(`k${k}_`, 50) })),
    );
    expect(full.status, JSON.stringify(full.body)).toBe(202);
    expect(await waitForBatch(full.body.source_id)).toEqual({ processed: 4, failed: 0 });
    const before = await sources();

    const over = await submit([
      { user_id: 'someone-else', text: 'Hello.' },
      { user_id: 'many-keys', text: 'One more thing.', attributes: { extra: 1 } },
    ]);
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', field: 'users[1].attributes' });
    expect(over.body.error.message).toContain(`at most ${MAX_USER_ATTRIBUTES} keys`);
    expect(await sources()).toBe(before);

    // Changing values of keys the user has is not growth: accepted.
    const update = await submit([{ user_id: 'many-keys', text: 'Still fine.', attributes: attrs('k0_', 50, 20) }]);
    expect(update.status, JSON.stringify(update.body)).toBe(202);
  });

  it(`merged attributes: past ${MAX_USER_ATTRIBUTE_BYTES} bytes is 422, counted with the batch's earlier items of the user`, async () => {
    // Each item alone is within the per-submission limits (50 keys, 1,000 characters a value).
    const heavy = [0, 1].map((k) => ({ user_id: 'heavy', text: 'Long values.', attributes: attrs(`h${k}_`, 20, 900) }));
    const res = await submit(heavy);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'quota_exceeded', field: 'users[1].attributes' });
    expect(res.body.error.message).toContain(`${MAX_USER_ATTRIBUTE_BYTES} bytes`);
    expect((await submit(heavy.slice(0, 1))).status).toBe(202);
  });

  it('a batch in flight is counted: a second that fits only if the first were ignored is 422, and nothing is dropped at the fold', async () => {
    const base = await submit(
      [0, 1, 2].map((k) => ({ user_id: 'racer', text: 'Part one.', attributes: attrs(`s${k}_`, 50) })),
    );
    expect(base.status, JSON.stringify(base.body)).toBe(202);
    expect(await waitForBatch(base.body.source_id)).toEqual({ processed: 3, failed: 0 });
    const logFrom = logSizes();

    // The user's row held: the next batch is stored and analysed, but its fold waits on the row.
    const row = await holdUserRow(t.projectId, 'racer');
    let first, second;
    try {
      // 150 keys stored + 50 in flight: exactly the bound.
      first = await submit([{ user_id: 'racer', text: 'Part two.', attributes: attrs('a_', 50) }]);
      expect(first.status, JSON.stringify(first.body)).toBe(202);
      await row.waitForWaiters(1); // its fold runs and waits: the batch is in flight, not folded
      // 151 keys with what is stored, 201 with the batch in flight.
      second = await submit([{ user_id: 'racer', text: 'Part three.', attributes: { b_0: 'v' } }]);
    } finally {
      await row.release();
    }
    expect(second.status, JSON.stringify(second.body)).toBe(422);
    expect(second.body.error).toMatchObject({ code: 'quota_exceeded', field: 'users[0].attributes' });
    expect(second.body.error.message).toContain('201 keys');

    expect(await waitForBatch(first.body.source_id)).toEqual({ processed: 1, failed: 0 });
    // Exactly what the accepted batches carried: nothing silently dropped by the fold's guard.
    expect((await stored('racer'))?.attributes).toEqual({
      ...attrs('s0_', 50),
      ...attrs('s1_', 50),
      ...attrs('s2_', 50),
      ...attrs('a_', 50),
    });
    const profile = await call('GET', `/api/v1/profiles/racer?project_id=${t.projectId}`, { key: t.key });
    expect(profile.body.aggregates.message_count).toBe(4);
    // The log read is the one that folded the batch (its chunk's last line, written after the
    // folds, has arrived), and it says nothing was dropped.
    const lines = await waitFor('the worker to log the chunk of the held batch', async () => {
      const since = logLinesSince(logFrom);
      const done = (l: string) => l.includes('"chunk done"') && l.includes(`"source_id":${first.body.source_id},`);
      return since.some(done) && since;
    });
    expect(lines.filter((l) => l.includes('attributes not merged'))).toEqual([]);
  });

  it('numbers count as PostgreSQL stores them: 200 × 1e300 is 422 (the JSON text would be 2 KB), exactly 32,768 bytes are stored', async () => {
    // 1e300 is `1e+300` to JSON.stringify (6 bytes) and `1` + 300 zeros to jsonb (301).
    const huge: Record<string, number>[] = [0, 1, 2, 3].map((k) =>
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`n${k}_${i}`, 1e300])),
    );
    const all = Object.assign({}, ...huge);
    expect(Object.entries(all).reduce((n, [k, v]) => n + k.length + JSON.stringify(v).length, 0)).toBeLessThan(
      MAX_USER_ATTRIBUTE_BYTES / 10,
    );
    // The first item at which PostgreSQL's measure of the merged attributes passes the bound.
    let over = 0;
    while ((await pgWeight(Object.assign({}, ...huge.slice(0, over + 1)))).bytes <= MAX_USER_ATTRIBUTE_BYTES) over++;
    expect(over).toBe(2);
    const before = await sources();
    const refused = await submit(huge.map((a) => ({ user_id: 'numbers', text: 'Big numbers.', attributes: a })));
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'quota_exceeded', field: `users[${over}].attributes` });
    expect(refused.body.error.message).toContain(`${MAX_USER_ATTRIBUTE_BYTES} bytes`);
    expect(await sources()).toBe(before);
    expect(await stored('numbers')).toBeUndefined();

    // Just within: 100 keys of 1e300, 7 more, and one number whose digits make exactly the bound.
    const fit = [huge[0], huge[1], Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`m${i}`, 1e300]))];
    const rest = MAX_USER_ATTRIBUTE_BYTES - (await pgWeight(Object.assign({}, ...fit))).bytes;
    expect(rest).toBeGreaterThan(25); // key `z` (1 byte) and a number of 21+ digits, written 1e+NN in JSON
    fit[2].z = Number(`1e${rest - 2}`);
    const exact = Object.assign({}, ...fit);
    expect(await pgWeight(exact)).toEqual({ keys: 108, bytes: MAX_USER_ATTRIBUTE_BYTES });
    const accepted = await submit(fit.map((a) => ({ user_id: 'numbers', text: 'Big numbers.', attributes: a })));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(await waitForBatch(accepted.body.source_id)).toEqual({ processed: 3, failed: 0 });
    expect(await stored('numbers')).toEqual({ attributes: exact, bytes: MAX_USER_ATTRIBUTE_BYTES });

    // One byte more of any kind is refused, and stores nothing.
    const more = await submit([{ user_id: 'numbers', text: 'One more.', attributes: { y: 1 } }]);
    expect(more.status).toBe(422);
    expect(more.body.error).toMatchObject({ code: 'quota_exceeded', field: 'users[0].attributes' });
    expect((await stored('numbers'))?.attributes).toEqual(exact);
  });

  it('user ids "." and ".." are refused (400 naming the field), other dotted ids are readable', async () => {
    const before = await sources();
    for (const id of ['.', '..']) {
      const res = await submit([
        { user_id: 'fine', text: 'Hi.' },
        { user_id: id, text: 'Hi.' },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_argument', field: 'users[1].user_id' });
    }
    expect(await sources()).toBe(before);

    const ok = await submit([
      { user_id: '...', text: 'Three dots.' },
      { user_id: '.hidden', text: 'A dot first.' },
    ]);
    expect(ok.status).toBe(202);
    await waitForBatch(ok.body.source_id);
    for (const id of ['...', '.hidden']) {
      const res = await call('GET', `/api/v1/profiles/${encodeURIComponent(id)}?project_id=${t.projectId}`, {
        key: t.key,
      });
      expect(res.status).toBe(200);
      expect(res.body.user_id).toBe(id);
    }
  });
});
