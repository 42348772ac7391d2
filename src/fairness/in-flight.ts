/** Thrown when work must wait its turn; the activity wrappers turn it into a retry after `retryAfterMs`. */
export class WaitYourTurn extends Error {
  constructor(message: string) {
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
export function createDeliveryLimits(limits: { perWebhook: number; perTenant: number }) {
  const webhooks = new KeyedCounter<number>();
  const tenants = new KeyedCounter<number>();
  return {
    /** A release function, or WaitYourTurn when either bound is reached. */
    acquire(webhookId: number, tenantId: number): () => void {
      if (webhooks.get(webhookId) >= limits.perWebhook) {
        throw new WaitYourTurn(`webhook ${webhookId} already has ${limits.perWebhook} attempts in flight`);
      }
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

/**
 * Fair share of the analysis slots (chunks and segment-evaluation pages) among the tenants that
 * have work: with N such tenants, each may run at most max(1, floor(slots / N)) at once; alone, a
 * tenant may use all slots but one. "Has work" is known from outside this worker (`activeTenants`, the
 * tenants with a batch not yet completed), because Temporal hands tasks out first come, first
 * served: a tenant whose small batch sits behind another's backlog in the task queue must count
 * before its task arrives, so that the backlog's tasks over their share are sent back (to retry
 * a moment later) and the queue moves on to it. Tenants seen asking in the last `recentMs` count too
 * (evaluations leave no unfinished batch).
 */
export function createFairShare(opts: {
  slots: number;
  activeTenants: () => Promise<Set<number>>;
  recentMs?: number;
  now?: () => number;
}) {
  const running = new KeyedCounter<number>();
  const asked = new Map<number, number>();
  const recentMs = opts.recentMs ?? 2_000;
  const now = opts.now ?? Date.now;
  return {
    async acquire(tenantId: number): Promise<() => void> {
      const t = now();
      asked.set(tenantId, t);
      for (const [k, at] of asked) if (t - at > recentMs) asked.delete(k);
      const active = new Set([...(await opts.activeTenants()), ...asked.keys()]);
      // Alone, a tenant leaves one slot free: a tenant whose work arrives next finds a slot at once
      // instead of waiting for one of the first tenant's tasks to end.
      const share = active.size <= 1 ? Math.max(1, opts.slots - 1) : Math.max(1, Math.floor(opts.slots / active.size));
      if (running.get(tenantId) >= share) {
        throw new WaitYourTurn(
          `tenant ${tenantId} has its fair share (${share} of ${opts.slots} analysis slots, ${active.size} tenants with work)`,
        );
      }
      return running.add(tenantId);
    },
  };
}
export type FairShare = ReturnType<typeof createFairShare>;

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
