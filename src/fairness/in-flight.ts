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
 * tenant, in this worker process. A receiver that hangs for its full timeout then holds a few
 * delivery slots, never all of them: other webhooks and tenants keep being delivered.
 */
export function createDeliveryLimits(limits: { perWebhook: number; perTenant: number; attemptTimeoutMs?: number }) {
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
    acquire(webhookId: number, tenantId: number): () => void {
      if (webhooks.get(webhookId) >= limits.perWebhook) throw webhookFull(webhookId);
      if (tenants.get(tenantId) >= limits.perTenant) {
        throw new WaitYourTurn(`tenant ${tenantId} already has ${limits.perTenant} delivery attempts in flight`);
      }
      const a = webhooks.add(webhookId);
      const b = tenants.add(tenantId);
      return () => (a(), b());
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
