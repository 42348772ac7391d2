import { AppError } from '../errors.js';

/** How long a tenant's request waits for one of its places before it is answered 429. */
export const TENANT_REQUEST_WAIT_MS = 2_000;
/** Requests of one tenant that may wait at once, per place: beyond that, 429 at once. */
const WAITING_PER_PLACE = 4;

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/**
 * At most `perTenant` requests of one tenant run at once in this api process; a few more wait
 * briefly for a place, the rest are answered 429 with Retry-After (as Stripe's concurrent-request
 * limiter). The database pool is shared by every tenant: without this, one tenant's burst of
 * reads queues every other tenant's request behind it until the pool's acquire timeout.
 *
 * Hand-written rather than p-limit: it needs one queue per tenant, a bounded queue, a deadline
 * per waiter and no state kept for idle tenants.
 */
export class TenantRequests {
  private readonly running = new Map<number, number>();
  private readonly waiting = new Map<number, Waiter[]>();

  constructor(
    private readonly perTenant: number,
    private readonly waitMs = TENANT_REQUEST_WAIT_MS,
  ) {}

  /** Runs `fn` in one of the tenant's places; throws `rate_limited` when none frees in time. */
  async run<T>(tenantId: number, fn: () => Promise<T>): Promise<T> {
    const leave = await this.enter(tenantId);
    try {
      return await fn();
    } finally {
      leave();
    }
  }

  /**
   * Takes one of the tenant's places for work that outlives a function call (a streamed answer
   * holds it until its last byte): answers the function that gives it back, which does so once
   * however often it is called. Throws `rate_limited` like run().
   */
  async enter(tenantId: number): Promise<() => void> {
    await this.acquire(tenantId);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.release(tenantId);
    };
  }

  /** Requests of the tenant running now (for tests and metrics). */
  inFlight(tenantId: number): number {
    return this.running.get(tenantId) ?? 0;
  }

  private acquire(tenantId: number): Promise<void> {
    const running = this.running.get(tenantId) ?? 0;
    if (running < this.perTenant) {
      this.running.set(tenantId, running + 1);
      return Promise.resolve();
    }
    const queue = this.waiting.get(tenantId) ?? [];
    if (queue.length >= this.perTenant * WAITING_PER_PLACE) return Promise.reject(this.busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The place is handed over by release(): the running count does not change.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          const q = this.waiting.get(tenantId);
          const i = q?.indexOf(waiter) ?? -1;
          if (q && i >= 0) q.splice(i, 1);
          if (q?.length === 0) this.waiting.delete(tenantId);
          reject(this.busy());
        }, this.waitMs),
      };
      queue.push(waiter);
      this.waiting.set(tenantId, queue);
    });
  }

  private release(tenantId: number): void {
    const queue = this.waiting.get(tenantId);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(tenantId);
    if (next) {
      next.grant();
      return;
    }
    const n = (this.running.get(tenantId) ?? 1) - 1;
    if (n <= 0) this.running.delete(tenantId);
    else this.running.set(tenantId, n);
  }

  private busy(): AppError {
    return new AppError(
      'rate_limited',
      `too many concurrent requests from this tenant (at most ${this.perTenant} at once per api process); retry shortly`,
      undefined,
      1,
    );
  }
}
