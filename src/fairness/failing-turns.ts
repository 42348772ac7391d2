/**
 * Attempts to failing webhooks take turns over time with the other tenants' deliveries.
 *
 * A receiver that fails fast (503 at once) frees its in-flight place at once, so in-flight bounds
 * do not hold its tenant back: one tenant's four failing endpoints on a short schedule took 89% of
 * a worker's attempts, and another tenant's fan-out fell from 14 to 2 deliveries a second. The
 * CPU an attempt costs is mostly the Temporal server's and PostgreSQL's, so it is the number of
 * attempts started per second that must be shared.
 *
 * The policy, per worker process: while another tenant has started attempts in the last
 * `windowMs`, a tenant's attempts to webhooks whose deliveries are failing start no faster than
 * the busiest other tenant's attempts (at least `floorPerSecond`). Each such attempt gets its own
 * turn. A retry's turn is booked when the attempt before it fails, and answered with the failure:
 * the workflow's retry sleep lasts until it, so sharing adds no work. An attempt without a turn (a
 * delivery's first, or a retry booked while the tenant was alone) asks when it starts: a turn
 * within `holdMs` is waited for in the worker; a later one is answered, and the workflow sleeps
 * until then on a durable timer and comes back with it (kept, whichever worker runs it), so it is
 * put off once, not sent back again and again. Healthy webhooks never wait here, and a tenant alone
 * is never held back: the policy only shares.
 */
export interface FailingTurnsOptions {
  windowMs?: number;
  floorPerSecond?: number;
  holdMs?: number;
  /** The furthest a turn is given; a turn further off is asked for again then. */
  horizonMs?: number;
  now?: () => number;
}

export type Turn = { waitMs: number } | { deferMs: number; turnAt: number };

/** Defaults: sharing follows the last 2 s, at least 2 attempts/s, a wait in the worker up to 1 s, turns up to 5 minutes ahead. */
export function createFailingTurns(opts: FailingTurnsOptions = {}) {
  const windowMs = opts.windowMs ?? 2_000;
  const floor = opts.floorPerSecond ?? 2;
  const holdMs = opts.holdMs ?? 1_000;
  const horizonMs = opts.horizonMs ?? 300_000;
  const now = opts.now ?? Date.now;
  const starts = new Map<number, number[]>();
  const nextTurn = new Map<number, number>();

  const recent = (tenantId: number, t: number): number => {
    const list = starts.get(tenantId);
    if (!list) return 0;
    while (list.length && list[0] <= t - windowMs) list.shift();
    if (list.length === 0) starts.delete(tenantId);
    return list.length;
  };

  /**
   * Books the tenant's next turn at or after `from`: undefined when no other tenant delivers (no
   * turns then), null when it would lie beyond the horizon (not booked: asked again later).
   */
  const bookFrom = (tenantId: number, from: number): number | null | undefined => {
    const t = now();
    let busiest = 0;
    for (const other of [...starts.keys()]) if (other !== tenantId) busiest = Math.max(busiest, recent(other, t));
    if (busiest === 0) {
      nextTurn.delete(tenantId); // alone: no turns to keep
      return undefined;
    }
    const perSecond = Math.max(floor, (busiest * 1_000) / windowMs);
    const at = Math.max(from, nextTurn.get(tenantId) ?? 0);
    if (at - t > horizonMs) return null;
    nextTurn.set(tenantId, at + 1_000 / perSecond);
    return at;
  };

  return {
    /** An attempt of this tenant starts now (every attempt, failing or not). */
    started(tenantId: number): void {
      const list = starts.get(tenantId) ?? [];
      list.push(now());
      starts.set(tenantId, list);
    },

    /** When an attempt to a failing webhook of this tenant that has no turn yet may start. */
    take(tenantId: number): Turn {
      const t = now();
      const at = bookFrom(tenantId, t);
      if (at === undefined) return { waitMs: 0 };
      if (at === null) return { deferMs: horizonMs, turnAt: 0 };
      return at - t <= holdMs ? { waitMs: at - t } : { deferMs: at - t, turnAt: at };
    },

    /**
     * The turn of the NEXT attempt of a delivery whose attempt to a failing webhook just failed,
     * no earlier than `earliest` (when its schedule retries it): given with the failure, the
     * workflow's retry sleep waits for it, so a turn costs nothing more than the sleep it already
     * had. Undefined without other tenants delivering (the schedule alone decides).
     */
    bookNext(tenantId: number, earliest: number): { turnAt: number } | undefined {
      const at = bookFrom(tenantId, earliest);
      if (at === undefined) return undefined;
      return at === null ? { turnAt: 0 } : { turnAt: at };
    },
  };
}
export type FailingTurns = ReturnType<typeof createFailingTurns>;
