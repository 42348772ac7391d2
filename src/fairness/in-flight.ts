import type { Db } from '../db/knex.js';
import { leaseSlots, releaseSlots } from './delivery-slots.js';

/** Thrown when work must wait its turn; the activity wrappers turn it into a retry (waitYourTurnDelayMs). */
export class WaitYourTurn extends Error {
  /**
   * @param maxDelayMs the longest wait before the task comes back (default 5 s): a webhook whose
   * attempts may each hang for the whole attempt timeout frees a place no sooner than that.
   */
  constructor(
    message: string,
    readonly maxDelayMs = 5_000,
  ) {
    super(message);
    this.name = 'WaitYourTurn';
  }
}

/** Counts what runs per key (a webhook, a tenant) in this process. */
export class KeyedCounter<K> {
  private readonly counts = new Map<K, number>();
  get(key: K): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: K): () => void {
    this.counts.set(key, this.get(key) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.get(key) - 1;
      if (n <= 0) this.counts.delete(key);
      else this.counts.set(key, n);
    };
  }
}

/**
 * At most `perWebhook` attempts in flight to one webhook and `perTenant` to all webhooks of one
 * tenant, across every delivery worker when `db` is given (leased slots, delivery-slots.ts), and
 * in this process in any case: the local count answers a full webhook without a query. A receiver
 * that hangs for its full timeout then holds a few delivery slots, never all of them: other
 * webhooks and tenants keep being delivered.
 */
export function createDeliveryLimits(limits: {
  perWebhook: number;
  perTenant: number;
  attemptTimeoutMs?: number;
  db?: Db;
}) {
  const webhooks = new KeyedCounter<number>();
  const tenants = new KeyedCounter<number>();
  const webhookFull = (webhookId: number) =>
    new WaitYourTurn(
      `webhook ${webhookId} already has ${limits.perWebhook} attempts in flight`,
      Math.max(5_000, limits.attemptTimeoutMs ?? 0),
    );
  return {
    /**
     * Throws WaitYourTurn when the webhook has its attempts in flight, before anything else is
     * done for the attempt (no gate token, no query): a hanging receiver's retries come back here
     * every few seconds, and each one used to cost a delivery-gate place and three queries.
     */
    checkWebhook(webhookId: number): void {
      if (webhooks.get(webhookId) >= limits.perWebhook) throw webhookFull(webhookId);
    },
    /** A release function, or WaitYourTurn when either bound is reached. */
    async acquire(webhookId: number, tenantId: number): Promise<() => Promise<void>> {
      const tenantFull = () =>
        new WaitYourTurn(`tenant ${tenantId} already has ${limits.perTenant} delivery attempts in flight`);
      if (webhooks.get(webhookId) >= limits.perWebhook) throw webhookFull(webhookId);
      if (tenants.get(tenantId) >= limits.perTenant) throw tenantFull();
      const a = webhooks.add(webhookId);
      const b = tenants.add(tenantId);
      const local = () => (a(), b());
      if (!limits.db) return async () => local();
      const db = limits.db;
      let holder: string | undefined;
      try {
        holder = await leaseSlots(
          db,
          [
            { key: `webhook:${webhookId}`, bound: limits.perWebhook },
            { key: `tenant:${tenantId}`, bound: limits.perTenant },
          ],
          // The activity's own timeout (the attempt's plus 30 s): no attempt outlives its lease, and
          // a worker killed mid-attempt holds its slots no longer than that.
          (limits.attemptTimeoutMs ?? 10_000) + 30_000,
        );
      } catch (err) {
        local();
        throw err;
      }
      if (!holder) {
        local();
        // Which key was full is not known from one statement; the webhook's is the longer wait.
        throw new WaitYourTurn(
          `webhook ${webhookId} or tenant ${tenantId} is at its in-flight bound across workers`,
          Math.max(5_000, limits.attemptTimeoutMs ?? 0),
        );
      }
      return async () => {
        local();
        // A lease that cannot be given back (database away) ends by itself.
        await releaseSlots(db, holder).catch(() => undefined);
      };
    },
  };
}
export type DeliveryLimits = ReturnType<typeof createDeliveryLimits>;

/** Refreshes an expensive answer at most every `ms` (concurrent callers share one refresh). */
export function everyAtMost<T>(ms: number, load: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let value: Promise<T> | undefined;
  let at = -Infinity;
  return () => {
    if (!value || now() - at >= ms) {
      at = now();
      value = load().catch((err: unknown) => {
        value = undefined;
        throw err;
      });
    }
    return value;
  };
}
