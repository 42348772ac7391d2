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
 * `windowMs`, a tenant's attempts to webhooks whose deliveries are failing start at most half as
 * fast as the busiest other tenant's attempts (at least `floorPerSecond`). Half, not as fast: an
 * attempt costs about the same whether it succeeds or fails, so at equal rates the other tenant
 * would keep only half of what the machine delivers, less the turns' own cost (measured 0.39x its
 * solo rate); at half it keeps about two thirds. Each such attempt gets its own turn. A retry's turn is booked when the attempt before it fails, and answered with the failure:
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

const BUCKETS = 20;

/** Defaults: sharing follows the last 2 s, at least 2 attempts/s, a wait in the worker up to 1 s, turns up to 5 minutes ahead. */
export function createFailingTurns(opts: FailingTurnsOptions = {}) {
  const windowMs = opts.windowMs ?? 2_000;
  const floor = opts.floorPerSecond ?? 2;
  const holdMs = opts.holdMs ?? 1_000;
  const horizonMs = opts.horizonMs ?? 300_000;
  const now = opts.now ?? Date.now;
  // Starts per tenant in BUCKETS slices of the window: constant memory per tenant, however many
  // attempts a busy worker makes.
  const sliceMs = windowMs / BUCKETS;
  const starts = new Map<number, { slices: number[]; counts: number[] }>();
  /** Per tenant: turns booked per second (epoch seconds). */
  const calendars = new Map<number, Map<number, number>>();

  const recent = (tenantId: number, t: number): number => {
    const s = starts.get(tenantId);
    if (!s) return 0;
    const current = Math.floor(t / sliceMs);
    let n = 0;
    for (let i = 0; i < BUCKETS; i++) if (s.slices[i] > current - BUCKETS) n += s.counts[i];
    if (n === 0) starts.delete(tenantId);
    return n;
  };

  /**
   * Books one of the tenant's turns at or after `from`: the first second (from `from` on) with a
   * place left at the share's rate, spaced within the second. Undefined when no other tenant
   * delivers (no turns then); null when every second up to `horizonMs` after `from` is taken (not
   * booked: asked again later). A calendar rather than one next-turn time, so that a retry booked
   * two hours ahead does not push back the turns of the next minutes.
   */
  const bookFrom = (tenantId: number, from: number): number | null | undefined => {
    const t = now();
    let busiest = 0;
    for (const other of [...starts.keys()]) if (other !== tenantId) busiest = Math.max(busiest, recent(other, t));
    if (busiest === 0) {
      calendars.delete(tenantId); // alone: no turns to keep
      return undefined;
    }
    const perSecond = Math.max(floor, Math.floor((busiest * 1_000) / windowMs / 2));
    let calendar = calendars.get(tenantId);
    if (!calendar) calendars.set(tenantId, (calendar = new Map()));
    const nowSecond = Math.floor(t / 1_000);
    for (const second of calendar.keys()) if (second < nowSecond) calendar.delete(second);
    const first = Math.floor(Math.max(t, from) / 1_000);
    for (let second = first; second <= first + horizonMs / 1_000; second++) {
      const taken = calendar.get(second) ?? 0;
      if (taken >= perSecond) continue;
      calendar.set(second, taken + 1);
      return Math.max(from, t, second * 1_000 + (taken * 1_000) / perSecond);
    }
    return null;
  };

  return {
    /** An attempt of this tenant starts now (every attempt, failing or not). */
    started(tenantId: number): void {
      const slice = Math.floor(now() / sliceMs);
      let s = starts.get(tenantId);
      if (!s) {
        // Tenants gone quiet are forgotten as new ones come, so the map holds the active ones.
        if (starts.size >= 1_000) for (const other of [...starts.keys()]) recent(other, now());
        s = { slices: new Array<number>(BUCKETS).fill(-Infinity), counts: new Array<number>(BUCKETS).fill(0) };
        starts.set(tenantId, s);
      }
      const i = slice % BUCKETS;
      if (s.slices[i] !== slice) {
        s.slices[i] = slice;
        s.counts[i] = 0;
      }
      s.counts[i]++;
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
