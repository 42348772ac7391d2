import { beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, waitForBatch, withDb, type Tenant } from '../support/api.js';
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

const weight = (a: Record<string, unknown>) =>
  Object.entries(a).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(v)), 0);

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

  it('two batches in flight together cannot pass the bound at the fold either; their messages are all analysed', async () => {
    // Both are checked against what is stored (nothing yet): the fold is what keeps the bound.
    const [a, b] = await Promise.all([
      submit([0, 1, 2, 3].map((k) => ({ user_id: 'racer', text: 'Part one.', attributes: attrs(`a${k}_`, 50) }))),
      submit([{ user_id: 'racer', text: 'Part two.', attributes: attrs('b_', 50) }]),
    ]);
    const accepted = [a, b].filter((r) => r.status === 202);
    for (const r of [a, b]) expect([202, 422]).toContain(r.status);
    for (const r of accepted) await waitForBatch(r.body.source_id);
    const profile = await call('GET', `/api/v1/profiles/racer?project_id=${t.projectId}`, { key: t.key });
    expect(profile.status).toBe(200);
    const keys = Object.keys(profile.body.attributes).length;
    expect(keys).toBeLessThanOrEqual(MAX_USER_ATTRIBUTES);
    expect(weight(profile.body.attributes)).toBeLessThanOrEqual(MAX_USER_ATTRIBUTE_BYTES);
    expect(profile.body.aggregates.message_count).toBe(accepted.reduce((n, r) => n + r.body.accepted, 0));
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
