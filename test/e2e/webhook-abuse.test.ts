import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { receiverLibrarySecret } from '../support/receiver-secret.js';
import { call, control, newTenant, waitFor, withDb, type Tenant } from '../support/api.js';
import { startHangingReceiver, startReceiver, type Answer, type Received } from '../support/receiver.js';
import { hooksPath, makeHook, ping } from '../support/webhooks.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import { holdIdempotencyKey } from '../support/row-lock.js';

/**
 * Webhook operations under abuse (issue 23), against real HTTPS receivers on the stack's schedule
 * 1s,2s,2s,2s,2s: recover queues each event once and goes through the relay's admission, a
 * receiver that checks only X-Webhook-Signature rotates without a rejected delivery, a second
 * rotation during an overlap is refused, a test event raced by a delete leaves nothing behind, and
 * a kill -9 of the api during rotate and recover breaks no promise and sends nothing twice.
 */
const hooks = hooksPath;
const eventIdOf = (r: Received) => Number(r.headers['x-event-id']);
const hex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` test events whose delivery to the webhook finally failed (as the last attempt of a schedule records it). */
async function finallyFailed(t: Tenant, webhookId: number, n: number): Promise<number[]> {
  return withDb(async (db) => {
    const { rows } = await db.query(
      `WITH e AS (
         INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
         SELECT $1, $2, '', '', '', 'ping', 0, 0 FROM generate_series(1, $4::int) RETURNING id
       ), d AS (
         INSERT INTO webhook_deliveries (event_id, webhook_id, attempt, attempt_key, status, status_code, response_body, duration_ms, final)
         SELECT id, $3::bigint, 6, 'fixture-' || $3::text || '-' || id || ':6', 'failed', 503, 'failing on purpose', 5, true FROM e
       )
       SELECT id FROM e ORDER BY id`,
      [t.projectId, t.pipelineId, webhookId, n],
    );
    return rows.map((r) => Number(r.id));
  });
}

/** A receiver whose answer a test can switch; `switchedAt` is the index of the first request answered after the switch. */
async function switchable(initial: Answer) {
  let answer = initial;
  const r = await startReceiver(() => answer);
  let switchedAt = 0;
  return {
    ...r,
    set: (a: Answer) => {
      switchedAt = r.received.length;
      answer = a;
    },
    sinceSwitch: () => r.received.slice(switchedAt),
  };
}

const count = (ids: number[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<number, number>());

describe('webhook operations under abuse', () => {
  // Five recovers per webhook in any 60 s (FIXED_QUOTAS.recoversPerMinute, src/quotas.ts); ten
  // race. takeSlot holds the webhook's row, so they are served one at a time: the first five take
  // the window's slots, the rest are answered 429. The split is exact whatever the order: the
  // tenant's 8 places per api process (TENANT_REQUESTS_IN_FLIGHT) let at least 8 reach takeSlot,
  // and the other 2 wait up to 2 s for a place, so at most 2 of the 429s can be that limiter's.
  it('10 concurrent recovers over 20 finally failed events: 5 answered 202 that queue each event once, 5 answered 429 (3 or more by the recover limit); exactly one successful POST per event once the deliveries are quiet', async () => {
    const rx = await switchable(500);
    try {
      const t = await newTenant('recover-race');
      const id = await makeHook(t, rx.url);
      const since = new Date(Date.now() - 60_000).toISOString();
      const failed = await finallyFailed(t, id, 20);
      const recover = () => call('POST', `${hooks(t)}/${id}/recover`, { key: t.key, body: { since } });
      const answers = await Promise.all(Array.from({ length: 10 }, recover));
      const accepted = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status === 429);
      expect(accepted).toHaveLength(5);
      expect(refused).toHaveLength(5);
      const byLimit = refused.filter((a) => a.body.error.message === 'at most 5 recovers per minute per webhook');
      expect(byLimit.length).toBeGreaterThanOrEqual(3);
      for (const a of refused) {
        expect(a.body.error.code).toBe('rate_limited');
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      for (const a of accepted) expect(a.body.events + a.body.already_recovering).toBe(20);
      expect(accepted.reduce((n, a) => n + a.body.events, 0)).toBe(20);

      // The recovered runs fail their first attempt (500), then the receiver recovers.
      await waitFor('a first attempt of every event', async () =>
        failed.every((e) => rx.received.some((r) => eventIdOf(r) === e)),
      );
      rx.set(200);
      await deliveriesQuiet({ webhookId: id });
      const successes = count(rx.sinceSwitch().map(eventIdOf));
      expect([...successes.keys()].sort()).toEqual([...failed].sort());
      expect([...successes.values()].every((n) => n === 1)).toBe(true);
      // Nothing is left under way, and the minute's slots are still taken.
      expect((await recover()).status).toBe(429);
      const { rows } = await withDb((db) =>
        db.query(
          `SELECT count(*)::int AS n FROM outbox WHERE webhook_id = $1 AND kind = 'recovery' AND dispatched_at IS NULL`,
          [id],
        ),
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await rx.close();
    }
  }, 120_000);

  it('a recovery of 10,000 events goes through the admission: never more than 8 of them wait for a first attempt', async () => {
    const rx = await startHangingReceiver(); // every attempt hangs for the 3 s timeout: the runs pile up if anything lets them
    try {
      const t = await newTenant('recover-flood');
      const id = await makeHook(t, rx.url);
      await finallyFailed(t, id, 10_000);
      const res = await call('POST', `${hooks(t)}/${id}/recover`, {
        key: t.key,
        body: { since: new Date(Date.now() - 60_000).toISOString() },
      });
      expect(res.body).toEqual({ events: 10_000, already_recovering: 0 });
      let mostWaiting = 0;
      let started = 0;
      await withDb(async (db) => {
        for (const until = Date.now() + 12_000; Date.now() < until; await sleep(200)) {
          const { rows } = await db.query(
            `SELECT count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                                        WHERE d.attempt_key = o.workflow_id || ':1'))::int AS waiting,
                    count(*)::int AS started
               FROM outbox o WHERE o.webhook_id = $1 AND o.kind = 'recovery' AND o.dispatched_at IS NOT NULL`,
            [id],
          );
          mostWaiting = Math.max(mostWaiting, rows[0].waiting);
          started = rows[0].started;
        }
      });
      expect(started).toBeGreaterThan(0); // the recovery is under way...
      expect(mostWaiting).toBeLessThanOrEqual(8); // ...at the pace of the admission
      expect(started).toBeLessThan(100);
      expect(rx.maxOpen()).toBeLessThanOrEqual(4); // WEBHOOK_MAX_IN_FLIGHT
      // Deleting the webhook drops the rest: nothing more starts.
      expect((await call('DELETE', `${hooks(t)}/${id}`, { key: t.key })).status).toBe(204);
    } finally {
      await rx.close();
    }
  }, 120_000);

  it('a receiver that checks only X-Webhook-Signature rotates with the documented steps and rejects nothing', async () => {
    // The receiver of the interface document: one header, compared with the secrets it holds.
    let accepted: string[] = [];
    const rejected: Received[] = [];
    const rx = await startReceiver((_n, r) => {
      const ok = accepted.some((s) => r.headers['x-webhook-signature'] === hex(s, r.body));
      if (!ok) rejected.push(r);
      return ok ? 200 : 401;
    });
    try {
      const t = await newTenant('rotation-steps');
      const oldSecret = 'interface-old-secret-1';
      accepted = [oldSecret];
      const id = await makeHook(t, rx.url, { secret: oldSecret });
      const delivered = async (what: string) => {
        const eventId = await ping(t, id);
        return waitFor(what, async () => rx.received.find((r) => eventIdOf(r) === eventId));
      };
      await delivered('before the rotation');

      // 1. Rotate (default overlap 24 h). X-Webhook-Signature stays on the old secret.
      const rotated = await call('POST', `${hooks(t)}/${id}/rotate-secret`, { key: t.key });
      expect(rotated.status).toBe(200);
      const newSecret: string = rotated.body.secret;
      const during = await delivered('during the overlap, the receiver unchanged');
      expect(during.headers['x-webhook-signature']).toBe(hex(oldSecret, during.body));

      // A second rotation, or a PUT of a secret, during the overlap is refused, naming its end;
      // the old secret keeps its promise.
      const second = await call('POST', `${hooks(t)}/${id}/rotate-secret`, { key: t.key });
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({ code: 'conflict' });
      expect(second.body.error.message).toContain(rotated.body.previous_secret_expires_at);
      const put = await call('PUT', `${hooks(t)}/${id}`, { key: t.key, body: { secret: 'another-secret-123' } });
      expect(put.status).toBe(409);
      const still = await delivered('after the refused rotations');
      expect(still.headers['x-webhook-signature']).toBe(hex(oldSecret, still.body));
      expect(
        new StandardWebhook(receiverLibrarySecret(newSecret)).verify(still.body, still.headers as any),
      ).toBeTruthy();

      // 2. The receiver accepts both. 3. End the overlap: the header switches to the new secret.
      accepted = [oldSecret, newSecret];
      await delivered('the receiver holding both');
      const ended = await call('POST', `${hooks(t)}/${id}/end-secret-overlap`, { key: t.key });
      expect(ended.status).toBe(200);
      expect(ended.body.previous_secret_expires_at).toBeNull();
      const after = await delivered('after the overlap was ended');
      expect(after.headers['x-webhook-signature']).toBe(hex(newSecret, after.body));
      expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);

      // 4. The receiver drops the old secret.
      accepted = [newSecret];
      await delivered('the receiver holding the new secret only');
      expect(rejected).toEqual([]);
      // A rotation is possible again now.
      expect((await call('POST', `${hooks(t)}/${id}/rotate-secret`, { key: t.key })).status).toBe(200);
    } finally {
      await rx.close();
    }
  }, 120_000);

  it('a test event sent while its webhook is deleted leaves no event behind (20 races)', async () => {
    const t = await newTenant('ping-delete');
    const pings = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const id = await makeHook(t, 'https://hooks.example.com/deleted');
        const [p, d] = await Promise.all([
          call('POST', `${hooks(t)}/${id}/test`, { key: t.key }),
          call('DELETE', `${hooks(t)}/${id}`, { key: t.key }),
        ]);
        expect(d.status).toBe(204);
        expect([202, 404]).toContain(p.status);
        return p.status;
      }),
    );
    const left = await withDb(
      async (db) =>
        (
          await db.query(`SELECT count(*)::int AS n FROM events WHERE pipeline_id = $1 AND event_type = 'ping'`, [
            t.pipelineId,
          ])
        ).rows[0].n,
    );
    expect(left).toBe(0);
    console.log(`ping vs delete: ${pings.filter((s) => s === 202).length} of 20 pings stored before their delete`);
  });

  it('kill -9 of the api with 3 recovers of 30 failed events in flight, one with its events queued but not committed: a recover after it queues all 30, each delivered exactly once', async () => {
    const rx = await startReceiver();
    try {
      const t = await newTenant('recover-kill');
      const id = await makeHook(t, rx.url);
      const failed = await finallyFailed(t, id, 30);
      const since = new Date(Date.now() - 60_000).toISOString();
      const recover = (headers: Record<string, string> = {}) =>
        call('POST', `${hooks(t)}/${id}/recover`, { key: t.key, body: { since }, headers }).catch((err: Error) => err);
      // Three recovers under one Idempotency-Key: the first takes its slot and queues the 30
      // events, then blocks storing its answer (held here, uncommitted); the other two wait for the
      // key behind it. The recorded point is all three seen waiting in PostgreSQL.
      const key = await holdIdempotencyKey(t.tenantId, 'recover-kill');
      const inFlight = Array.from({ length: 3 }, () => recover({ 'Idempotency-Key': 'recover-kill' }));
      await key.waitForWaiters(3);
      const atKill = await key.waiters();
      await control('api/restart'); // SIGKILL, then a new api
      await key.release();
      const lost = await Promise.all(inFlight);
      expect(atKill).toBe(3); // the window: one recover done but for its commit, two behind it
      expect(lost.every((r) => r instanceof Error)).toBe(true); // none of them was answered
      // Their transactions died with the api: no slot, no queued event, no answer under the key. A
      // recover now queues every event; had the first one's events been committed before its
      // answer, all 30 would be `already_recovering`.
      const after = await recover({ 'Idempotency-Key': 'recover-kill' });
      expect(after).toMatchObject({ status: 202, body: { events: 30, already_recovering: 0 } });
      await waitFor('every event delivered', async () =>
        failed.every((e) => rx.received.some((r) => eventIdOf(r) === e)),
      );
      await deliveriesQuiet({ webhookId: id });
      const sent = count(rx.received.map(eventIdOf));
      expect([...sent.keys()].sort()).toEqual([...failed].sort());
      expect([...sent.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await rx.close();
    }
  }, 120_000);

  it('kill -9 of the api during a rotation, its new secret written but not committed: a retry with the same Idempotency-Key answers the secret that signs', async () => {
    const rx = await startReceiver();
    try {
      const t = await newTenant('rotate-kill');
      const oldSecret = 'before-the-crash-123';
      const id = await makeHook(t, rx.url, { secret: oldSecret });
      const rotate = () =>
        call('POST', `${hooks(t)}/${id}/rotate-secret`, {
          key: t.key,
          headers: { 'Idempotency-Key': 'rotate-once' },
        });
      // The rotation writes the new secret, then blocks storing its answer (held here) inside its
      // transaction; the api dies there.
      const key = await holdIdempotencyKey(t.tenantId, 'rotate-once');
      const lost = rotate().catch((err: Error) => err);
      await key.waitForWaiters(1);
      const atKill = await key.waiters();
      await control('api/restart');
      await key.release();
      expect(atKill).toBe(1); // the window: the rotation done but for its commit when the api died
      expect(await lost).toBeInstanceOf(Error); // and the client got no answer
      // Nothing of it was committed: the retry rotates (a committed secret without its answer
      // would make the retry a second rotation during the overlap, refused 409).
      const retried = await rotate();
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      const again = await rotate();
      expect(again.body.secret).toBe(retried.body.secret); // a replay rotates nothing
      const eventId = await ping(t, id);
      const got = await waitFor('the ping', async () => rx.received.find((r) => eventIdOf(r) === eventId));
      // The answered secret is the one that signs, and the old one keeps its promise.
      expect(
        new StandardWebhook(receiverLibrarySecret(retried.body.secret)).verify(got.body, got.headers as any),
      ).toBeTruthy();
      expect(got.headers['x-webhook-signature']).toBe(hex(oldSecret, got.body));
    } finally {
      await rx.close();
    }
  }, 120_000);
});
