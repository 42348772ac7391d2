import { status, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, waitFor, waitForBatch, withDb } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';
import { makeHook, ping } from '../support/webhooks.js';

/**
 * `idempotency_key` over the real gRPC port, the counterpart of the gateway's Idempotency-Key tests
 * (users-profiles.test.ts, webhooks.test.ts): a retry answers the first answer and starts nothing
 * more; the same key with another request is FAILED_PRECONDITION (`idempotency_key_reused`, the
 * gateway's 422) and stores nothing.
 */
const refused = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to be refused');
    },
    (e: ServiceError) => e,
  );

async function sourcesOf(projectId: number): Promise<number> {
  return withDb(
    async (db) =>
      (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [projectId])).rows[0].n,
  );
}

describe('idempotency keys over gRPC', () => {
  const clients = grpcClients();
  afterAll(() => Object.values(clients).forEach((c) => c.close()));

  it('IdentifyUsers: a retry with the key answers the first batch; the key with other users is FAILED_PRECONDITION', async () => {
    const t = await newTenant('grpc-idem-users');
    const md = keyMetadata(t.key);
    const request = {
      projectId: t.projectId,
      idempotencyKey: 'grpc-batch-1',
      users: [{ userId: 'first', text: 'Please add dark mode.' }],
    };
    const first = await rpc(clients.users, 'identifyUsers', request, md);
    const again = await rpc(clients.users, 'identifyUsers', request, md);
    expect(again).toEqual(first);
    expect(await waitForBatch(first.sourceId)).toEqual({ processed: 1, failed: 0 });
    expect(await sourcesOf(t.projectId)).toBe(1);

    const other = await refused(
      rpc(clients.users, 'identifyUsers', { ...request, users: [{ userId: 'second', text: 'Another batch.' }] }, md),
    );
    expect(other.code).toBe(status.FAILED_PRECONDITION);
    expect(other.metadata.get('error-code')).toEqual(['idempotency_key_reused']);
    expect(await sourcesOf(t.projectId)).toBe(1);
    const second = await call('GET', `/api/v1/profiles/second?project_id=${t.projectId}`, { key: t.key });
    expect(second.status).toBe(404);

    // Another key is another request.
    const fresh = await rpc(clients.users, 'identifyUsers', { ...request, idempotencyKey: 'grpc-batch-2' }, md);
    expect(fresh.sourceId).not.toBe(first.sourceId);
    await waitForBatch(fresh.sourceId);
  });

  describe('ResendDelivery', () => {
    let rx: Awaited<ReturnType<typeof startReceiver>>;
    beforeAll(async () => {
      rx = await startReceiver();
    });
    afterAll(() => rx.close());

    it('one resend per idempotency_key however often it is retried; the key for another delivery is FAILED_PRECONDITION', async () => {
      const t = await newTenant('grpc-idem-resend');
      const md = keyMetadata(t.key);
      const webhookId = await makeHook(t, rx.url);
      await ping(t, webhookId);
      await waitFor('the test event delivered', async () => rx.received.length >= 1);
      const ref = { projectId: t.projectId, pipelineId: t.pipelineId, webhookId };
      // The row, not the receiver: the attempt records it after the receiver has answered.
      const listed = await waitFor('the delivery row', async () => {
        const r = await rpc(clients.webhooks, 'listDeliveries', { ref }, md);
        return r.deliveries.length >= 1 && r;
      });
      expect(listed.deliveries).toHaveLength(1);
      const deliveryId = listed.deliveries[0].id;

      // Ten retries of one request, five of them at once.
      const request = { ref, deliveryId, idempotencyKey: 'grpc-resend-once' };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => rpc(clients.webhooks, 'resendDelivery', request, md)),
      );
      for (let k = 0; k < 5; k++) answers.push(await rpc(clients.webhooks, 'resendDelivery', request, md));
      expect(new Set(answers.map((a) => a.workflowId)).size).toBe(1);
      await waitFor('the resend delivered', async () => rx.received.length >= 2);

      // The same key for another request (the resend's own delivery row) is refused.
      const rows = await waitFor('the resend recorded', async () => {
        const r = await rpc(clients.webhooks, 'listDeliveries', { ref }, md);
        return r.deliveries.length >= 2 ? r.deliveries : undefined;
      });
      const other = rows.find((d) => d.id !== deliveryId)!;
      const reused = await refused(rpc(clients.webhooks, 'resendDelivery', { ...request, deliveryId: other.id }, md));
      expect(reused.code).toBe(status.FAILED_PRECONDITION);
      expect(reused.metadata.get('error-code')).toEqual(['idempotency_key_reused']);

      // Without a key, two requests are two resends; the receiver then has the original, the one
      // keyed resend and these two, all of the same event.
      const a = await rpc(clients.webhooks, 'resendDelivery', { ref, deliveryId }, md);
      const b = await rpc(clients.webhooks, 'resendDelivery', { ref, deliveryId }, md);
      expect(a.workflowId).not.toBe(b.workflowId);
      expect(answers[0].workflowId).not.toBe(a.workflowId);
      // Each resend is recorded as an outbox row in its request's transaction: three runs in all.
      const runs = await withDb(
        async (db) =>
          (
            await db.query(`SELECT count(*)::int AS n FROM outbox WHERE webhook_id = $1 AND kind = 'resend'`, [
              webhookId,
            ])
          ).rows[0].n,
      );
      expect(runs).toBe(3);
      await waitFor('two more resends', async () => rx.received.length >= 4);
      expect(new Set(rx.received.map((r) => r.headers['x-event-id'])).size).toBe(1);
    });
  });
});
