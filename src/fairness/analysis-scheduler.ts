import { KeyedCounter, WaitYourTurn } from './in-flight.js';

/**
 * Fair scheduling of analysis work (batch chunks, segment-evaluation pages) between tenants, in
 * one worker process.
 *
 * Temporal hands this worker up to `accept` tasks at once (its activity slots), but only `slots`
 * of them run; the others wait here, in one queue per tenant. Whenever a task ends, the next to
 * start is taken from the waiting tenant with the fewest tasks running (ties: the tenant that has
 * waited longest for a turn). A tenant's small batch that arrives behind another tenant's backlog
 * therefore starts as soon as one running task ends, instead of after the whole backlog.
 *
 * Why tasks wait here and are not sent back to Temporal to retry later: a task sent back costs the
 * Temporal server a failure, a retry timer and a new dispatch, and a backlog of hundreds of tasks
 * sent back again and again kept the server busy enough to slow every tenant's workflows (issue 14:
 * 725 tasks sent back in one deploy burst of 44 segments). Waiting here costs a promise and a
 * heartbeat every few seconds.
 *
 * Two bounds remain, both from the tenants "with work" (`activeTenants`: a batch not completed yet,
 * read from PostgreSQL; plus the tenants whose tasks are here or asked in the last `recentMs`):
 * - running: a tenant runs at most max(1, floor(slots / N)) tasks at once, even when slots are
 *   idle: with another tenant active, a burst of one tenant's tasks must not take the CPU the
 *   other tenant's next task needs (lending idle slots measured no better in the fairness bench).
 *   Alone, a tenant runs at most slots - 1 (or 1 of 1), so that a task arriving next starts at once.
 * - held: a tenant holds at most max(1, floor(accept / N)) tasks here (alone: accept - 1). A task
 *   over that is sent back (WaitYourTurn), so the task queue keeps moving towards the other
 *   tenants' tasks even on a Temporal server that hands tasks out first come, first served.
 */
/** Analysis tasks a worker takes from Temporal per running slot: the extra ones wait here for their tenant's turn. */
export const ACCEPTED_PER_SLOT = 4;

export function createAnalysisScheduler(opts: {
  slots: number;
  accept: number;
  activeTenants: () => Promise<Set<number>>;
  recentMs?: number;
  now?: () => number;
}) {
  const slots = Math.max(1, opts.slots);
  const accept = Math.max(slots, opts.accept);
  const recentMs = opts.recentMs ?? 2_000;
  const now = opts.now ?? Date.now;
  const running = new KeyedCounter<number>();
  const held = new KeyedCounter<number>();
  const asked = new Map<number, number>();
  let active = new Set<number>();
  let total = 0;
  interface Waiter {
    start: () => void;
  }
  const queues = new Map<number, Waiter[]>();
  /** Tenants with waiting tasks, in the order they last got (or first asked for) a turn. */
  const turns: number[] = [];

  const tenantsWithWork = () => {
    const t = now();
    for (const [k, at] of asked) if (t - at > recentMs) asked.delete(k);
    return new Set([...active, ...asked.keys(), ...queues.keys()]).size;
  };
  const runShare = (n: number) => (n <= 1 ? Math.max(1, slots - 1) : Math.max(1, Math.floor(slots / n)));
  const holdShare = (n: number) => (n <= 1 ? Math.max(1, accept - 1) : Math.max(1, Math.floor(accept / n)));
  function startNext(): void {
    while (total < slots && turns.length > 0) {
      const share = runShare(tenantsWithWork());
      // The waiting tenant with the fewest tasks running, within its share; `turns` order breaks ties.
      let best = -1;
      for (let i = 0; i < turns.length; i++) {
        if (running.get(turns[i]) >= share) continue;
        if (best === -1 || running.get(turns[i]) < running.get(turns[best])) best = i;
      }
      if (best === -1) return;
      const tenantId = turns[best];
      turns.splice(best, 1);
      const queue = queues.get(tenantId)!;
      const waiter = queue.shift()!;
      if (queue.length > 0) turns.push(tenantId);
      else queues.delete(tenantId);
      waiter.start();
    }
  }

  return {
    /**
     * Resolves with a release function when this task may run; rejects at once with WaitYourTurn
     * when its tenant already holds its share of this worker's tasks, or when `signal` aborts
     * while it waits (the activity was cancelled, the worker is stopping).
     */
    async acquire(tenantId: number, signal?: AbortSignal): Promise<() => void> {
      asked.set(tenantId, now());
      active = await opts.activeTenants();
      const n = tenantsWithWork();
      if (held.get(tenantId) >= holdShare(n)) {
        throw new WaitYourTurn(
          `tenant ${tenantId} holds its share of this worker's analysis tasks (${holdShare(n)} of ${accept}, ${n} tenants with work)`,
        );
      }
      const unhold = held.add(tenantId);
      const begin = (): (() => void) => {
        total++;
        const unrun = running.add(tenantId);
        let done = false;
        return () => {
          if (done) return;
          done = true;
          total--;
          unrun();
          unhold();
          startNext();
        };
      };
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(begin());
          },
        };
        const onAbort = () => {
          const queue = queues.get(tenantId);
          const i = queue?.indexOf(waiter) ?? -1;
          if (i === -1) return;
          queue!.splice(i, 1);
          if (queue!.length === 0) {
            queues.delete(tenantId);
            turns.splice(turns.indexOf(tenantId), 1);
          }
          unhold();
          reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled while waiting for a turn'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const queue = queues.get(tenantId);
        if (queue) queue.push(waiter);
        else {
          queues.set(tenantId, [waiter]);
          turns.push(tenantId);
        }
        // Starts this task at once if a slot is free for it and no tenant with fewer running waits.
        startNext();
      });
    },
    /** What runs and waits now, for logs and tests. */
    state() {
      return { running: total, waiting: [...queues.values()].reduce((s, q) => s + q.length, 0) };
    },
  };
}
export type AnalysisScheduler = ReturnType<typeof createAnalysisScheduler>;
