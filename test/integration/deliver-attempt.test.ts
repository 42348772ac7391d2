import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { createLogger } from '../../src/observability/logger.js';
import type { FailingTurns } from '../../src/fairness/failing-turns.js';
import { createDeliveryFairness } from '../../src/fairness/delivery-fairness.js';
import { deliverAttempt } from '../../src/webhooks/deliver-attempt.js';
import { retryWaitMs } from '../../src/webhooks/retry-schedule.js';
import { testDatabaseUrl } from '../support/database.js';
import { insertEventFixture } from '../support/event-fixture.js';

/**
 * The delivery activity against the real database with private networks NOT allowed: no
 * connection is made to a private address, and the delivery row says why.
 */
describe('delivery activity SSRF guard', () => {
  let db: Db;
  let listener: net.Server;
  let connections = 0;
  let port = 0;
  let eventId = 0;
  let pipelineId = 0;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as net.AddressInfo).port;
    ({ pipelineId, eventId } = await insertEventFixture(db, 'ssrf'));
  });

  afterAll(async () => {
    listener.close();
    await db.destroy();
  });

  const targets = ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '2130706433'];

  it.each(targets)('refuses https://%s without connecting and records why', async (host) => {
    const [webhook] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url: `https://${host}:${port}/hook`, events: ['user_added', 'user_removed'] })
      .returning('id');
    const before = connections;
    const out = await deliverAttempt(
      { db, openSecret: (s) => s, timeoutMs: 2_000, allowPrivateNetworks: false, log: createLogger('silent') },
      { workflowId: `test-ssrf-${webhook.id}`, eventId, webhookId: webhook.id, attempt: 1 },
    );
    expect(out.outcome).toBe('failed');
    const row = await db('webhook_deliveries').where({ webhook_id: webhook.id }).first();
    expect(row).toMatchObject({ status: 'failed', status_code: 0 });
    expect(row.response_body).toMatch(/refused: .*(loopback|private)/);
    expect(connections).toBe(before);
    // Retrying the same attempt does not post again nor add a row.
    await deliverAttempt(
      { db, openSecret: (s) => s, timeoutMs: 2_000, allowPrivateNetworks: false, log: createLogger('silent') },
      { workflowId: `test-ssrf-${webhook.id}`, eventId, webhookId: webhook.id, attempt: 1 },
    );
    expect(
      await db('webhook_deliveries').where({ webhook_id: webhook.id }).count<{ count: string }[]>('* as count'),
    ).toEqual([{ count: 1 }]);
  });
});

/**
 * A failed attempt with a next one records when its workflow retries (workflows/delivery.ts sleeps
 * retryWaitMs): from the delay the workflow gave it, not from the api's schedule.
 */
describe('delivery activity next_attempt_at', () => {
  let db: Db;
  let eventId = 0;
  let pipelineId = 0;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    ({ pipelineId, eventId } = await insertEventFixture(db, 'next-attempt'));
  });

  afterAll(async () => {
    await db.destroy();
  });

  /** A new webhook on a private address: every attempt is refused, a failure without a network. */
  const newWebhook = async (columns: { is_active?: boolean } = {}): Promise<number> => {
    const [webhook] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url: 'https://127.0.0.1:9/hook', events: ['user_added'], ...columns })
      .returning('id');
    return webhook.id;
  };
  const depsWith = (turns?: FailingTurns) => ({
    db,
    openSecret: (x: string) => x,
    timeoutMs: 2_000,
    allowPrivateNetworks: false,
    log: createLogger('silent'),
    fairness: createDeliveryFairness({ turns }),
  });
  /** Turns that book a failing webhook's next attempt 4 s after the schedule would. */
  const laterTurns = {
    started: () => undefined,
    take: () => ({ waitMs: 0 }),
    bookNext: (_tenant: number, earliest: number) => ({ turnAt: earliest + 4_000 }),
  } as unknown as FailingTurns;

  /** One refused attempt to a new webhook. */
  const attempt = async (input: { nextDelayMs?: number; last?: boolean }, turns?: FailingTurns) => {
    const webhookId = await newWebhook();
    const out = await deliverAttempt(depsWith(turns), {
      workflowId: `test-next-${webhookId}`,
      eventId,
      webhookId,
      attempt: 1,
      ...input,
    });
    const row = await db('webhook_deliveries').where({ webhook_id: webhookId }).first();
    expect(row.status).toBe('failed');
    return { out, waitMs: row.next_attempt_at && row.next_attempt_at.getTime() - row.created_at.getTime() };
  };

  it('is created_at plus the delay the workflow gave the attempt', async () => {
    expect((await attempt({ nextDelayMs: 1_500 })).waitMs).toBe(1_500);
    expect((await attempt({ nextDelayMs: 90_000 })).waitMs).toBe(90_000);
  });

  it('is the booked turn of a failing webhook when that is later, exactly what the workflow sleeps', async () => {
    const { out, waitMs } = await attempt({ nextDelayMs: 1_500 }, laterTurns);
    expect(out.nextTurnInMs).toBe(5_500);
    expect(waitMs).toBe(5_500);
  });

  it('is kept by a retried activity: the wait it answers ends no earlier than the recorded time', async () => {
    const webhookId = await newWebhook();
    const input = { workflowId: `test-again-${webhookId}`, eventId, webhookId, attempt: 1, nextDelayMs: 1_500 };
    await deliverAttempt(depsWith(laterTurns), input);
    // The activity again, as after a crash between the insert and its completion.
    const again = await deliverAttempt(depsWith(laterTurns), input);
    const rows = await db('webhook_deliveries').where({ webhook_id: webhookId });
    expect(rows).toHaveLength(1);
    expect(again.outcome).toBe('failed');
    const sleepsUntil = Date.now() + retryWaitMs(1_500, again.retryAfterMs, again.nextTurnInMs);
    expect(sleepsUntil).toBeGreaterThanOrEqual(rows[0].next_attempt_at.getTime());
    // Without the recorded time it would sleep only the schedule's 1.5 s, before the 5.5 s recorded.
    expect(again.nextTurnInMs).toBeGreaterThan(1_500);
  });

  it('is a stop again for a retried activity whose attempt recorded a stop', async () => {
    const webhookId = await newWebhook({ is_active: false });
    const input = { workflowId: `test-stop-${webhookId}`, eventId, webhookId, attempt: 1, nextDelayMs: 1_000 };
    expect((await deliverAttempt(depsWith(), input)).outcome).toBe('stopped');
    expect((await deliverAttempt(depsWith(), input)).outcome).toBe('stopped');
    expect(await db('webhook_deliveries').where({ webhook_id: webhookId })).toMatchObject([{ final: true }]);
    // On the schedule's last attempt too: a stop, not an exhausted schedule.
    const last = { ...input, workflowId: `test-stop-last-${webhookId}`, last: true, nextDelayMs: undefined };
    expect((await deliverAttempt(depsWith(), last)).outcome).toBe('stopped');
    expect((await deliverAttempt(depsWith(), last)).outcome).toBe('stopped');
  });

  it('is a failure again, with no wait of its own, for a retried last attempt that failed', async () => {
    const webhookId = await newWebhook();
    const input = { workflowId: `test-last-${webhookId}`, eventId, webhookId, attempt: 1, last: true };
    expect(await deliverAttempt(depsWith(), input)).toMatchObject({ outcome: 'failed' });
    const again = await deliverAttempt(depsWith(), input);
    expect(again.outcome).toBe('failed');
    expect(again).not.toHaveProperty('nextTurnInMs');
    expect(await db('webhook_deliveries').where({ webhook_id: webhookId })).toMatchObject([
      { final: true, next_attempt_at: null },
    ]);
  });

  it('is null for a last attempt, and when the input has no delay (scheduled before it carried one)', async () => {
    expect((await attempt({ last: true })).waitMs).toBeNull();
    expect((await attempt({})).waitMs).toBeNull();
  });
});
