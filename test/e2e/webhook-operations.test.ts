import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverLibrarySecret } from '../support/receiver-secret.js';
import { call, newTenant, waitFor, waitForBatch, withDb, type ApiResponse, type Tenant } from '../support/api.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import { hooksPath, makeHook, ping } from '../support/webhooks.js';
import { startReceiver, type Answer, type Received } from '../support/receiver.js';

/**
 * Webhook operations (issue 15) against real HTTPS receivers, on the stack's schedule 1s,2s,2s,2s,2s:
 * secret rotation with overlap, 410 Gone, Retry-After, recovery, the test event, the deliveries
 * cursor and filters, segment filters; auto-disable on an instance of its own, its 5 days of
 * failures backdated with SQL.
 */
const hooks = hooksPath;
const verifies = (secret: string, r: Received) => {
  try {
    new StandardWebhook(receiverLibrarySecret(secret)).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const eventIdOf = (r: Received) => Number(r.headers['webhook-id']);

async function deliveriesOf(t: Tenant, webhookId: number, query = ''): Promise<any[]> {
  const res = await call('GET', `${hooks(t)}/${webhookId}/deliveries${query}`, { key: t.key });
  expect(res.status).toBe(200);
  return res.body;
}

/** A receiver whose answers a test can switch while it runs. */
async function switchable(initial: Answer) {
  let answer = initial;
  const r = await startReceiver(() => answer);
  return { ...r, set: (a: Answer) => (answer = a) };
}

describe('webhook operations', () => {
  it('test event: a signed ping through the normal path, listed with the deliveries', async () => {
    const rx = await startReceiver();
    try {
      const t = await newTenant('ping');
      const secret = 'ping-secret-123';
      const id = await makeHook(t, rx.url, { secret, events: ['user_removed'] });
      const eventId = await ping(t, id);
      const got = await waitFor('the ping', async () => rx.received.find((r) => eventIdOf(r) === eventId));
      expect(JSON.parse(got.body)).toEqual({
        event_type: 'ping',
        timestamp: expect.stringMatching(/Z$/),
        pipeline_id: t.pipelineId,
        message: expect.any(String),
      });
      expect(got.headers['x-event-type']).toBe('ping');
      expect(got.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(got.body).digest('hex'));
      expect(verifies(secret, got)).toBe(true);
      const list = await waitFor('its delivery row', async () => (await deliveriesOf(t, id)).length === 1 && true);
      expect(list).toBe(true);
      expect((await deliveriesOf(t, id))[0]).toMatchObject({ event_id: eventId, status: 'success', status_code: 200 });
      // An inactive webhook is refused, and nothing is stored.
      await call('PUT', `${hooks(t)}/${id}`, { key: t.key, body: { is_active: false } });
      const refused = await call('POST', `${hooks(t)}/${id}/test`, { key: t.key });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/inactive/);
    } finally {
      await rx.close();
    }
  });

  it('rotation: both secrets verify every delivery during the overlap (X-Webhook-Signature stays on the old one), only the new one after; the old is erased', async () => {
    const rx = await startReceiver();
    try {
      const t = await newTenant('rotation');
      const oldSecret = 'the-old-secret-0123';
      const id = await makeHook(t, rx.url, { secret: oldSecret });
      const rotated = await call('POST', `${hooks(t)}/${id}/rotate-secret`, {
        key: t.key,
        body: { overlap_seconds: 6 },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const newSecret: string = rotated.body.secret;
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(newSecret.slice(6), 'base64')).toHaveLength(32);
      expect(rotated.body.webhook).toMatchObject({ id });
      expect(rotated.body.webhook).not.toHaveProperty('secret');
      const expires = new Date(rotated.body.previous_secret_expires_at).getTime();
      expect(expires).toBeGreaterThan(Date.now());
      // The secret is answered once: never by a read. A read shows the overlap's end.
      const read = (await call('GET', `${hooks(t)}/${id}`, { key: t.key })).body;
      expect(JSON.stringify(read)).not.toContain(newSecret);
      expect(read.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);

      const during = [await ping(t, id), await ping(t, id)];
      const got = await waitFor('both pings', async () => {
        const xs = rx.received.filter((r) => during.includes(eventIdOf(r)));
        return xs.length === 2 && xs;
      });
      for (const r of got) {
        expect(Date.now()).toBeLessThan(expires); // still inside the overlap
        expect(r.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
        expect(verifies(oldSecret, r)).toBe(true);
        expect(verifies(newSecret, r)).toBe(true);
        // The interface's single signature stays on the secret receivers have until the overlap ends.
        expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', oldSecret).update(r.body).digest('hex'));
      }

      // After the overlap: the worker's sweep erases the old secret, and only the new one signs.
      await withDb((db) =>
        waitFor(
          'the previous secret erased',
          async () =>
            Date.now() > expires &&
            (await db.query('SELECT previous_secret_sealed FROM webhooks WHERE id = $1', [id])).rows[0]
              .previous_secret_sealed === null,
          30_000,
          250,
        ),
      );
      const after = await ping(t, id);
      const late = await waitFor('the ping after the overlap', async () =>
        rx.received.find((r) => eventIdOf(r) === after),
      );
      expect(late.headers['webhook-signature']).toMatch(/^v1,\S+$/);
      expect(verifies(newSecret, late)).toBe(true);
      expect(verifies(oldSecret, late)).toBe(false);
      expect(late.headers['x-webhook-signature']).toBe(createHmac('sha256', newSecret).update(late.body).digest('hex'));
      expect((await call('GET', `${hooks(t)}/${id}`, { key: t.key })).body.previous_secret_expires_at).toBeNull();

      // A given secret with overlap 0 replaces at once; PUT with a secret too.
      const now = await call('POST', `${hooks(t)}/${id}/rotate-secret`, {
        key: t.key,
        body: { secret: 'third-secret-456', overlap_seconds: 0 },
      });
      expect(now.body).toMatchObject({ secret: 'third-secret-456', previous_secret_expires_at: null });
      const third = await ping(t, id);
      const r3 = await waitFor('third', async () => rx.received.find((r) => eventIdOf(r) === third));
      expect(verifies('third-secret-456', r3)).toBe(true);
      expect(verifies(newSecret, r3)).toBe(false);
      // Bad input changes nothing.
      for (const body of [{ secret: 'short' }, { overlap_seconds: -1 }, { overlap_seconds: 604_801 }, { secret: 7 }]) {
        const bad = await call('POST', `${hooks(t)}/${id}/rotate-secret`, { key: t.key, body });
        expect(bad.status, JSON.stringify(body)).toBe(400);
      }
      const fourth = await ping(t, id);
      const r4 = await waitFor('fourth', async () => rx.received.find((r) => eventIdOf(r) === fourth));
      expect(verifies('third-secret-456', r4)).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it('410 Gone: no more attempts, the webhook is deactivated with a reason, cleared on re-activation', async () => {
    const rx = await startReceiver(() => 410);
    try {
      const t = await newTenant('gone');
      const id = await makeHook(t, rx.url);
      const eventId = await ping(t, id);
      await waitFor('the webhook deactivated', async () => {
        const w = (await call('GET', `${hooks(t)}/${id}`, { key: t.key })).body;
        return w.is_active === false && w;
      });
      // Once its delivery is over (the schedule would have retried after 1 s, then 2 s), one attempt.
      await deliveriesQuiet({ webhookId: id });
      expect(rx.received.filter((r) => eventIdOf(r) === eventId)).toHaveLength(1);
      const w = (await call('GET', `${hooks(t)}/${id}`, { key: t.key })).body;
      expect(w.disabled_reason).toMatch(/410 Gone/);
      const rows = await deliveriesOf(t, id);
      expect(rows.map((d) => [d.status, d.status_code])).toEqual([['failed', 410]]);
      // The delivery's last attempt: no next one is due.
      expect(rows[0]).toMatchObject({ attempt: 1, final: true, next_attempt_at: null });
      const back = await call('PUT', `${hooks(t)}/${id}`, { key: t.key, body: { is_active: true } });
      expect(back.body).toMatchObject({ is_active: true, disabled_reason: null });
    } finally {
      await rx.close();
    }
  });

  it('429 with Retry-After: 3 holds the next attempt back at least 3 s (the schedule says 1 s)', async () => {
    const rx = await startReceiver((n) => (n === 1 ? { status: 429, headers: { 'Retry-After': '3' } } : 200));
    try {
      const t = await newTenant('retry-after');
      const id = await makeHook(t, rx.url);
      const eventId = await ping(t, id);
      const [first, second] = await waitFor('two attempts', async () => {
        const xs = rx.received.filter((r) => eventIdOf(r) === eventId);
        return xs.length >= 2 && xs;
      });
      expect(second.at - first.at).toBeGreaterThanOrEqual(3_000);
      const rows = await waitFor('two rows', async () => {
        const xs = await deliveriesOf(t, id);
        return xs.length === 2 && xs;
      });
      expect(rows.map((d) => [d.status, d.status_code, d.retry_after_ms])).toEqual([
        ['success', 200, null],
        ['failed', 429, 3_000],
      ]);
      // The next attempt was due Retry-After after the 429, not the schedule's 1 s, and came no earlier.
      const [ok, held] = rows;
      expect(Date.parse(held.next_attempt_at) - Date.parse(held.created_at)).toBe(3_000);
      expect(Date.parse(ok.created_at)).toBeGreaterThanOrEqual(Date.parse(held.next_attempt_at));
      expect(ok.next_attempt_at).toBeNull();
    } finally {
      await rx.close();
    }
  });

  it('recover re-sends exactly the events that finally failed since the time given, once', async () => {
    const rx = await switchable(500);
    try {
      const t = await newTenant('recover');
      const id = await makeHook(t, rx.url);
      const finalFailure = (eventId: number) =>
        withDb((db) =>
          waitFor(
            `event ${eventId} finally failed`,
            async () =>
              (
                await db.query('SELECT 1 FROM webhook_deliveries WHERE event_id = $1 AND webhook_id = $2 AND final', [
                  eventId,
                  id,
                ])
              ).rows.length === 1,
            60_000,
            250,
          ),
        );
      const before = await ping(t, id);
      await finalFailure(before);
      const since = new Date().toISOString();
      const failed = [await ping(t, id), await ping(t, id)];
      await Promise.all(failed.map(finalFailure));
      rx.set(200);
      const delivered = await ping(t, id);
      await waitFor('the good ping', async () => rx.received.some((r) => eventIdOf(r) === delivered));
      const attemptsBefore = rx.received.length;

      const key = `recover-${Date.now()}`;
      const first = await call('POST', `${hooks(t)}/${id}/recover`, {
        key: t.key,
        body: { since },
        headers: { 'Idempotency-Key': key },
      });
      expect(first.status, JSON.stringify(first.body)).toBe(202);
      expect(first.body).toEqual({ events: 2, already_recovering: 0 });
      const again = await call('POST', `${hooks(t)}/${id}/recover`, {
        key: t.key,
        body: { since },
        headers: { 'Idempotency-Key': key },
      });
      expect(again.body).toEqual({ events: 2, already_recovering: 0 });
      await waitFor('both re-sent', async () =>
        failed.every((e) => rx.received.slice(attemptsBefore).some((r) => eventIdOf(r) === e)),
      );
      await deliveriesQuiet({ webhookId: id }); // no run left that could send one more
      const resent = rx.received.slice(attemptsBefore).map(eventIdOf);
      expect(resent.sort()).toEqual([...failed].sort());
      // Nothing failed since then any more: a new recovery finds nothing.
      const none = await call('POST', `${hooks(t)}/${id}/recover`, { key: t.key, body: { since } });
      expect(none.body).toEqual({ events: 0, already_recovering: 0 });
      for (const body of [{}, { since: 'yesterday' }, { since: '2999-01-01T00:00:00Z' }, { since: 5 }]) {
        const bad = await call('POST', `${hooks(t)}/${id}/recover`, { key: t.key, body });
        expect(bad.status, JSON.stringify(body)).toBe(400);
      }
    } finally {
      await rx.close();
    }
  }, 120_000);

  it('the deliveries cursor walks 450 rows in pages of 200 with no gap and no repeat; filters by status and event', async () => {
    const t = await newTenant('cursor');
    const id = await makeHook(t, 'https://hooks.example.com/cursor');
    const eventIds = await withDb(async (db) => {
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { rows } = await db.query(
          `INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
           VALUES ($1, $2, '', '', '', 'ping', 0, 0) RETURNING id`,
          [t.projectId, t.pipelineId],
        );
        ids.push(Number(rows[0].id));
      }
      await db.query(
        `INSERT INTO webhook_deliveries (event_id, webhook_id, attempt, attempt_key, status, status_code, response_body, duration_ms)
         SELECT ($2::bigint[])[1 + g % 3], $1::bigint, 1, 'cursor-' || $1::text || '-' || g,
                CASE WHEN g % 5 = 0 THEN 'success' ELSE 'failed' END, CASE WHEN g % 5 = 0 THEN 200 ELSE 500 END, '', 1
           FROM generate_series(1, 450) g`,
        [id, ids],
      );
      return ids;
    });
    const seen: number[] = [];
    let path: string | undefined = `${hooks(t)}/${id}/deliveries?limit=200`;
    const pages: number[] = [];
    while (path) {
      const res: ApiResponse = await call('GET', path, { key: t.key });
      expect(res.status).toBe(200);
      pages.push(res.body.length);
      seen.push(...res.body.map((d: any) => d.id));
      const link: string | null = res.headers.get('link');
      path = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    }
    expect(pages).toEqual([200, 200, 50]);
    expect(new Set(seen).size).toBe(450);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    const { rows } = await withDb((db) => db.query('SELECT id FROM webhook_deliveries WHERE webhook_id = $1', [id]));
    expect(new Set(seen)).toEqual(new Set(rows.map((r) => Number(r.id))));

    const ok = await deliveriesOf(t, id, '?status=success&limit=200');
    expect(ok).toHaveLength(90);
    expect(ok.every((d) => d.status === 'success')).toBe(true);
    const one = await deliveriesOf(t, id, `?event_id=${eventIds[0]}&status=failed&limit=200`);
    expect(one.length).toBeGreaterThan(0);
    expect(one.every((d) => d.event_id === eventIds[0] && d.status === 'failed')).toBe(true);
    for (const q of ['?status=pending', '?before=abc', '?before=0', '?event_id=-1', '?limit=201']) {
      const bad = await call('GET', `${hooks(t)}/${id}/deliveries${q}`, { key: t.key });
      expect(bad.status, q).toBe(400);
    }
  });

  it('a segment-filtered webhook receives only its segments’ events', async () => {
    const only = await startReceiver();
    const all = await startReceiver();
    try {
      const t = await newTenant('segment-filter');
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
      const everyone = { field: 'window_size', op: '>=', value: 1 };
      for (const sid of ['seg-a', 'seg-b']) {
        expect(
          (await call('POST', `${base}/segments`, { key: t.key, body: { id: sid, name: sid, rule: everyone } })).status,
        ).toBe(201);
        await call('POST', `${base}/segments/${sid}/deploy`, { key: t.key });
      }
      const bad = await call('POST', hooks(t), { key: t.key, body: { url: only.url, segments: ['seg-a', 'nope'] } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/nope/);
      const filtered = await makeHook(t, only.url, { segments: ['seg-a'] });
      expect((await call('GET', `${hooks(t)}/${filtered}`, { key: t.key })).body.segments).toEqual(['seg-a']);
      await makeHook(t, all.url);
      const res = await call('POST', '/api/v1/users', {
        key: t.key,
        body: {
          project_id: t.projectId,
          users: [{ user_id: 'u1', text: 'Hello there, quick question about invoices.' }],
        },
      });
      await waitForBatch(res.body.source_id);
      await waitFor('both events at the unfiltered receiver', async () => all.received.length >= 2);
      await waitFor('the filtered receiver', async () => only.received.length >= 1);
      await deliveriesQuiet({ pipelineId: t.pipelineId });
      expect(only.received.map((r) => JSON.parse(r.body).segment.id)).toEqual(['seg-a']);
      expect(all.received.map((r) => JSON.parse(r.body).segment.id).sort()).toEqual(['seg-a', 'seg-b']);
      // Clearing the filter (an empty list) means every segment again.
      const cleared = await call('PUT', `${hooks(t)}/${filtered}`, { key: t.key, body: { segments: [] } });
      expect(cleared.body.segments).toEqual([]);
    } finally {
      await Promise.all([only.close(), all.close()]);
    }
  });
});

describe('auto-disable (5 days of failures, backdated with SQL; an instance of its own)', () => {
  const DB = 'auto_disable_e2e';
  let inst: Instance;
  beforeAll(async () => {
    const url = await createDatabase(DB);
    inst = await startInstance(url, 'auto-disable', {
      env: { WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s' },
    });
  }, 180_000);
  afterAll(async () => {
    await inst?.stop();
    await dropDatabase(DB).catch(() => undefined);
  });

  it('keeps a webhook failing for less than 5 days, deactivates it past 5 days, logs it, and stops its retries', async () => {
    const rx = await startReceiver(() => 500);
    const db = new pg.Client({ connectionString: inst.databaseUrl });
    await db.connect();
    try {
      const tenant = await inst.call('POST', '/admin/v1/tenants', { body: { name: 'auto-disable' } });
      const key = tenant.body.api_key;
      const p = await inst.call('POST', '/api/v1/projects', { key, body: { name: 'p' } });
      const pl = await inst.call('POST', `/projects/${p.body.id}/pipelines`, { key, body: { name: 'main' } });
      const base = `/projects/${p.body.id}/pipelines/${pl.body.id}/webhooks`;
      const wh = await inst.call('POST', base, { key, body: { url: rx.url } });
      expect((await inst.call('POST', `${base}/${wh.body.id}/test`, { key })).status).toBe(202);
      // Two failed attempts a second apart: failing, not for 5 days, so still active.
      await waitFor('two failed attempts', async () => rx.received.length >= 2, 30_000, 100);
      const failing = (await inst.call('GET', `${base}/${wh.body.id}`, { key })).body;
      expect(failing).toMatchObject({ is_active: true, disabled_reason: null });
      // Its failures backdated to 5 days and a minute ago: the next failed attempt deactivates it.
      const since = new Date(Date.now() - 5 * 24 * 3600 * 1000 - 60_000);
      await db.query('UPDATE webhooks SET failing_since = $2 WHERE id = $1', [wh.body.id, since]);
      const disabled = await waitFor(
        'auto-disable',
        async () => {
          const w = (await inst.call('GET', `${base}/${wh.body.id}`, { key })).body;
          return w.is_active === false && w;
        },
        60_000,
        250,
      );
      expect(disabled.disabled_reason).toBe(`every delivery failed since ${since.toISOString()} (5 days)`);
      const attempts = rx.received.length;
      await deliveriesQuiet({ webhookId: wh.body.id, databaseUrl: inst.databaseUrl });
      expect(rx.received.length).toBe(attempts); // the schedule (1 s) would have sent more
      const { rows } = await db.query(
        'SELECT status, status_code, final FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY attempt',
        [wh.body.id],
      );
      expect(rows.at(-1)).toMatchObject({ status: 'failed', status_code: 0, final: true });
      // Over the API: the attempts that were sent show their headers and when the next was due
      // (this instance's schedule: 1 s); the one not sent has no headers and no next attempt.
      const listed = (await inst.call('GET', `${base}/${wh.body.id}/deliveries?limit=200`, { key })).body;
      expect(listed).toHaveLength(rows.length);
      const [notSent, ...sent] = listed;
      expect(notSent).toMatchObject({ status_code: 0, final: true, next_attempt_at: null, request_headers: null });
      expect(notSent.response_body).toMatch(/^not sent: the webhook is inactive/);
      for (const d of sent) {
        expect(d).toMatchObject({ status: 'failed', status_code: 500, final: false });
        expect(d.request_headers).toMatchObject({ 'X-Event-ID': String(d.event_id), 'webhook-id': String(d.event_id) });
        expect(Date.parse(d.next_attempt_at) - Date.parse(d.created_at)).toBe(1_000);
      }
      const warning = readFileSync(inst.logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"webhook deactivated"'));
      expect(warning).toHaveLength(1);
      expect(JSON.parse(warning[0])).toMatchObject({ level: 'warn', webhook_id: wh.body.id });
    } finally {
      await db.end();
      await rx.close();
    }
  });
});
