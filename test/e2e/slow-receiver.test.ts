import { describe, expect, it } from 'vitest';
import { call, newTenant, waitFor, waitForBatch, withDb, type Tenant } from '../support/api.js';
import { startHangingReceiver, startReceiver } from '../support/receiver.js';

async function wire(t: Tenant, url: string): Promise<number> {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  const hook = await call('POST', `${base}/webhooks`, { key: t.key, body: { url } });
  expect(hook.status).toBe(201);
  await call('POST', `${base}/segments`, {
    key: t.key,
    body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
  });
  expect((await call('POST', `${base}/segments/everyone/deploy`, { key: t.key })).status).toBe(200);
  return hook.body.id;
}

/**
 * Deletes a hanging receiver's webhook: its deliveries stop at their next attempt, so the backlog
 * (minutes of 3 s timeouts) does not run on into the tests after this file.
 */
async function unwire(t: Tenant, webhookId: number): Promise<void> {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  expect((await call('DELETE', `${base}/webhooks/${webhookId}`, { key: t.key })).status).toBe(204);
}

async function submit(t: Tenant, prefix: string, n: number): Promise<number> {
  const users = Array.from({ length: n }, (_, i) => ({
    user_id: `${prefix}-${i}`,
    text: `The export keeps failing (#${i})`,
  }));
  const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
  expect(res.status).toBe(202);
  return res.body.source_id;
}

describe('a receiver that never answers', () => {
  it(
    "holds at most its webhook's share of delivery slots, while another tenant's batch is analysed and delivered",
    { timeout: 180_000 },
    async () => {
      const hanging = await startHangingReceiver();
      const healthy = await startReceiver();
      const slow = await newTenant('slow-receiver');
      const victim = await newTenant('victim');
      const slowHook = await wire(slow, hanging.url);
      await wire(victim, healthy.url);

      expect(await waitForBatch(await submit(slow, 'slow', 100))).toEqual({ processed: 100, failed: 0 });
      // The slow tenant's 100 deliveries are now queued on one webhook that hangs every attempt.
      await waitFor('attempts hanging on the slow receiver', async () => hanging.spans.length >= 4, 60_000, 50);

      const submitted = Date.now();
      const source = await submit(victim, 'victim', 10);
      expect(await waitForBatch(source)).toEqual({ processed: 10, failed: 0 });
      const analysed = Date.now();
      await waitFor("the victim's 10 events delivered", async () => healthy.received.length >= 10, 60_000, 50);
      const delivered = Date.now();

      // Causal, not timed: while the victim's batch was analysed, attempts to the slow receiver were
      // hanging; and its events were delivered inside the slow backlog's delivery, with attempts on
      // the hanging receiver both before and after. Not "hanging at the instant of delivery": between
      // one attempt's 3 s timeout and the next attempt the hanging receiver can hold nothing for a
      // moment, and a quiet clean-clone run delivered the victim's ten within such a moment.
      const hangingDuring = (from: number, to: number) =>
        hanging.spans.filter((s) => s.start < to && (s.end === undefined || s.end > from)).length;
      expect(hangingDuring(submitted, analysed)).toBeGreaterThan(0);
      await waitFor(
        'an attempt on the hanging receiver after the delivery',
        async () => hanging.spans.some((s) => s.start > delivered),
        60_000,
        50,
      );
      // Not starved, said as an order rather than a time (speed figures are in npm run bench): the
      // victim's ten were delivered before 100 attempts had started on the hanging receiver, so
      // before the slow tenant's 100 events had all had even a first attempt.
      const startedBefore = hanging.spans.filter((s) => s.start < delivered).length;
      expect(startedBefore).toBeLessThan(100);
      // WEBHOOK_MAX_IN_FLIGHT (default 4): never more attempts open on one webhook at once.
      expect(hanging.maxOpen()).toBeLessThanOrEqual(4);
      expect(healthy.received.map((r) => JSON.parse(r.body).user.id).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `victim-${i}`).sort(),
      );
      console.log(
        `[slow-receiver] ${hanging.spans.length} attempts on the hanging receiver, at most ${hanging.maxOpen()} open at once; ` +
          `${hangingDuring(submitted, analysed)} hanging while the victim's batch was analysed, ${hangingDuring(analysed, delivered)} while its 10 events were delivered, ` +
          `${startedBefore} started by then`,
      );
      await unwire(slow, slowHook);
      await Promise.all([hanging.close(), healthy.close()]);
    },
  );
});

describe('a hanging webhook and a healthy one of the same tenant', () => {
  it('holds back only its own events: they wait in the outbox while the healthy webhook gets all of its own', async () => {
    const hanging = await startHangingReceiver();
    const healthy = await startReceiver();
    const t = await newTenant('two-webhooks');
    const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
    const hook = await call('POST', `${base}/webhooks`, { key: t.key, body: { url: hanging.url } });
    expect(hook.status).toBe(201);
    await wire(t, healthy.url);
    const n = 30;
    expect(await waitForBatch(await submit(t, 'both', n))).toEqual({ processed: n, failed: 0 });
    await waitFor('every event at the healthy webhook', async () => healthy.received.length >= n, 60_000, 50);
    // The relay admits a webhook's runs only while fewer than 2 x WEBHOOK_MAX_IN_FLIGHT (8) wait for a
    // first attempt: the hanging webhook's other events are still in the outbox, not in Temporal.
    const { rows } = await withDb((db) =>
      db.query(
        `SELECT count(*) FILTER (WHERE dispatched_at IS NULL)::int AS waiting,
                count(*) FILTER (WHERE dispatched_at IS NOT NULL)::int AS started
           FROM outbox WHERE webhook_id = $1`,
        [hook.body.id],
      ),
    );
    expect(rows[0].waiting + rows[0].started).toBe(n);
    expect(rows[0].waiting).toBeGreaterThan(0);
    expect(hanging.maxOpen()).toBeLessThanOrEqual(4);
    console.log(
      `[slow-receiver] healthy webhook: ${n} of ${n} delivered while the hanging one had ${rows[0].started} runs started and ${rows[0].waiting} waiting in the outbox`,
    );
    await unwire(t, hook.body.id);
    await Promise.all([hanging.close(), healthy.close()]);
  });
});
