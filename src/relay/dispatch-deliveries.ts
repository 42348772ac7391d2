import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Starters } from '../temporal/starters.js';
import { grpcCause } from '../temporal/grpc-cause.js';
import { markDispatched } from '../outbox/outbox.js';
import { claimDeliveries, SETTLE_AWAITING_SQL, type ClaimedDelivery } from '../outbox/delivery-admission.js';

/**
 * What the relay does after a round of deliveries: go on at once (a full claim), after PACE_MS (a
 * tenant had more than its share of the round), or stop (the rest waits for first attempts:
 * RECHECK_MS, the poll); `refused` when Temporal refused a start (the poll tries again).
 */
export type DeliveryRound = { next: 'more' | 'paced' | 'done'; refused: boolean };

/** One round of deliveries: starts the outbox rows that delivery admission claims. */
export async function dispatchDeliveries(
  deps: { db: Db; starters: Starters; log: Logger },
  admit: { perWebhook: number; perTenant: number },
): Promise<DeliveryRound> {
  const { db, starters, log } = deps;
  // Its own short statement, not in the claim's transaction, which holds its locks while it
  // starts workflows: another relay's settle would wait for that.
  await db.raw(SETTLE_AWAITING_SQL);
  return db.transaction(async (trx) => {
    const { rows: mine, paced, full } = await claimDeliveries(trx, admit);
    const started: [number, string][] = [];
    await Promise.all(
      mine.map(async (r: ClaimedDelivery) => {
        try {
          const workflowId = await starters.startDelivery({
            eventId: r.event_id,
            eventUid: r.event_uid,
            webhookId: r.webhook_id,
            pipelineId: r.pipeline_id,
            tenantId: Number(r.tenant_id),
            ...(r.kind !== 'event' && {
              resend: { deliveryId: Number(r.resend_of), token: r.token!, recovery: r.kind === 'recovery' },
            }),
          });
          started.push([Number(r.id), workflowId]);
        } catch (err) {
          log.warn('outbox dispatch failed; will retry', {
            outbox_id: r.id,
            err: (err as Error).message,
            cause: grpcCause(err),
          });
        }
      }),
    );
    await markDispatched(trx, started);
    if (started.length < mine.length) return { next: 'done', refused: true };
    if (paced) return { next: 'paced', refused: false };
    return { next: full && mine.length > 0 ? 'more' : 'done', refused: false };
  });
}
