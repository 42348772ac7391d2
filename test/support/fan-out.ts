import { waitFor, withDb, type Tenant } from './api.js';
import type { Received } from './receiver.js';

/**
 * `n` test events for the webhook, each with its outbox row, in one transaction, and the relay
 * woken: a fan-out that measures the delivery path alone (relay, Temporal, worker, receiver).
 */
export async function enqueueEvents(t: Tenant, webhookId: number, n: number): Promise<void> {
  await withDb((db) =>
    db.query(
      `WITH e AS (
         INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
         SELECT $1, $2, '', '', '', 'ping', 0, 0 FROM generate_series(1, $4::int) RETURNING id
       ), o AS (INSERT INTO outbox (event_id, webhook_id) SELECT id, $3::bigint FROM e)
       SELECT pg_notify('outbox', '')`,
      [t.projectId, t.pipelineId, webhookId, n],
    ),
  );
}

/** Deliveries per second of a fan-out of `n` events to a receiver, from its first POST to its last. */
export async function fanOutRate(t: Tenant, webhookId: number, received: Received[], n: number): Promise<number> {
  const before = received.length;
  await enqueueEvents(t, webhookId, n);
  await waitFor(`${n} deliveries`, async () => received.length - before >= n, 900_000, 100);
  const mine = received.slice(before);
  return ((n - 1) * 1_000) / (mine[n - 1].at - mine[0].at);
}
