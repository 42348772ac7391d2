import type { DeliveryGate } from './delivery-gate.js';
import type { FailingTurns } from './failing-turns.js';
import type { DeliveryLimits } from './in-flight.js';

/**
 * Everything fairness asks of one delivery attempt, in one place, so that the attempt itself
 * (src/webhooks/deliver-attempt.ts) only loads, sends and records. Three questions, in the order
 * the attempt reaches them:
 * - at the start, before anything is read: a webhook at its in-flight bound sends the attempt back
 *   (WaitYourTurn: no gate token, no query), then the delivery gate lets it pass (deliveries yield
 *   to analysis on a shared CPU);
 * - before the send: a place in flight for the webhook and the tenant (WaitYourTurn when either is
 *   full), then, for a failing webhook, a turn shared with other tenants' deliveries: a turn far
 *   off is answered as a deferral (nothing sent, nothing recorded; the workflow sleeps until it);
 * - after a failure that will be retried: the retry's turn, booked before the row is written so
 *   that the row says when the workflow retries.
 * Each part is absent when switched off (FAIRNESS_OFF) or not built for this role.
 */
export interface DeliveryFairness {
  atStart(webhookId: number): Promise<void>;
  beforeSend(attempt: {
    webhookId: number;
    tenantId: number;
    failing: boolean;
    /** The turn an earlier answer gave this attempt: it starts without asking again. */
    turnAt?: number;
    /** The workflow can sleep on a deferral (older workflows cannot: they wait here instead). */
    canDefer?: boolean;
  }): Promise<{ deferMs: number; turnAt: number } | { release: () => Promise<void> }>;
  retryTurn(tenantId: number, earliestMs: number): { turnAt: number } | undefined;
}

export function createDeliveryFairness(parts: {
  limits?: DeliveryLimits;
  gate?: DeliveryGate;
  turns?: FailingTurns;
}): DeliveryFairness {
  const { limits, gate, turns } = parts;
  return {
    async atStart(webhookId) {
      limits?.checkWebhook(webhookId);
      await gate?.pass();
    },
    async beforeSend(a) {
      const release = (await limits?.acquire(a.webhookId, a.tenantId)) ?? (async () => undefined);
      try {
        // After the in-flight place: a turn is not spent on an attempt sent back.
        if (turns && a.failing && !a.turnAt) {
          const turn = turns.take(a.tenantId);
          if ('deferMs' in turn && a.canDefer) {
            await release();
            return { deferMs: turn.deferMs, turnAt: turn.turnAt };
          }
          const waitMs = 'waitMs' in turn ? turn.waitMs : 0;
          if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
        }
        turns?.started(a.tenantId);
      } catch (err) {
        await release();
        throw err;
      }
      return { release };
    },
    retryTurn: (tenantId, earliestMs) => turns?.bookNext(tenantId, earliestMs),
  };
}

/** No fairness: every attempt goes at once (the activity's own tests). */
export const UNFAIR: DeliveryFairness = createDeliveryFairness({});
