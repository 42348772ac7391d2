/**
 * Deliveries yield to analysis on a shared machine. The CPU a delivery costs is mostly spent
 * outside its own process: each one is a workflow of a dozen steps in the Temporal server, rows in
 * PostgreSQL, a TLS handshake. One tenant's fan-out of 2,000 POSTs kept the Temporal server at
 * three quarters of a core, and another tenant's 10-user batch, which needs the same server for
 * each of its steps and the CPU for its model, took 3-4x its idle time. Niceness cannot rank work
 * inside the Temporal server (deliveries in a niced process of their own measured no better), so
 * the worker ranks it at the source: while it analyses, new attempts start at most
 * `ratePerSecond`; when it does not, they all start at once.
 * The relay admits new deliveries only as first attempts are made, so the whole fan-out slows with
 * them, and catches up in the gaps. No attempt waits longer than `maxWaitMs`, so deliveries are
 * never starved, whatever the analysis load.
 */

/**
 * Whether analysis is under way: it runs in this worker (with a short linger, as a batch's steps
 * have gaps between them), or a batch is stored and not yet completed anywhere (`pending`, polled
 * every `lingerMs` while deliveries come). The second matters on a loaded machine: between one
 * chunk and the next batch's first chunk a tenant's work waits in Temporal (a workflow start, a
 * workflow task, the activity queue), 0.5-1 s under a fan-out on a 2-core machine, far longer than
 * the linger; deliveries then burst into every such gap, and a fixed rate while analysing (5 or
 * 10 per second) made no difference to the fan-out's pace or the victim's latency (fairness bench,
 * docs/fairness.md).
 */
export interface AnalysisActivity {
  /** An analysis activity starts; call the returned function when it ends. */
  enter(): () => void;
  busy(): boolean;
  onChange(listener: (busy: boolean) => void): void;
  /**
   * A delivery is about to pass the gate: `pending` is polled from now until `watchMs` after the
   * last call, and this resolves when its answer is at most two lingers old. A worker with no
   * deliveries does not poll at all.
   */
  watch(): Promise<void>;
  /** Stops polling `pending`. */
  stop(): void;
}

export function createAnalysisActivity(opts: {
  lingerMs: number;
  /** Whether a batch waits for analysis anywhere (read from PostgreSQL); absent: this worker only. */
  pending?: () => Promise<boolean>;
  /** How long polling goes on after the last `watch()` (default 15 s, longer than an attempt waits at the gate). */
  watchMs?: number;
  now?: () => number;
}): AnalysisActivity {
  const now = opts.now ?? Date.now;
  const watchMs = opts.watchMs ?? 15_000;
  let running = 0;
  let lingering = false;
  let pending = false;
  let busy = false;
  let linger: NodeJS.Timeout | undefined;
  const listeners: ((busy: boolean) => void)[] = [];
  const update = () => {
    const b = running > 0 || lingering || pending;
    if (b === busy) return;
    busy = b;
    for (const l of listeners) l(b);
  };
  // Polled only while deliveries come: every worker polling every 250 ms forever was four queries
  // a second per idle worker for nothing.
  let polled = -Infinity;
  let watched = -Infinity;
  let poll: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let stopped = false;
  const pollOnce = (): Promise<void> =>
    (polling ??= opts.pending!()
      .then(
        (p) => {
          pending = p;
        },
        // PostgreSQL away: judge by this worker's own activities until it answers again.
        () => {
          pending = false;
        },
      )
      .finally(() => {
        polling = undefined;
        polled = now();
        update();
      }));
  const stopPolling = () => {
    clearInterval(poll);
    poll = undefined;
  };
  return {
    enter() {
      running++;
      clearTimeout(linger);
      linger = undefined;
      lingering = false;
      update();
      let left = false;
      return () => {
        if (left) return;
        left = true;
        running--;
        if (running > 0) return;
        lingering = true;
        linger = setTimeout(() => {
          lingering = false;
          update();
        }, opts.lingerMs);
        linger.unref();
      };
    },
    busy: () => busy,
    onChange: (l) => void listeners.push(l),
    async watch() {
      if (!opts.pending || stopped) return;
      watched = now();
      if (!poll) {
        poll = setInterval(() => {
          if (now() - watched > watchMs) stopPolling();
          else void pollOnce();
        }, opts.lingerMs);
        poll.unref();
      }
      if (now() - polled > 2 * opts.lingerMs) await pollOnce();
    },
    stop() {
      stopped = true;
      stopPolling();
    },
  };
}

export interface DeliveryGate {
  /** Whether analysis is under way (the `analysis` option's changes, or set directly). */
  setBusy(busy: boolean): void;
  /** Resolves when an attempt may start: at once unless analysis is busy. */
  pass(): Promise<void>;
}

/**
 * While analysis is under way, a worker's delivery attempts start at most this many per second, and
 * none waits longer than DELIVERY_YIELD_MAX_MS. At 5 per second the victim did better still, but a
 * 2,000-event fan-out took 894 s instead of 311 s (docs/fairness.md).
 */
export const DELIVERIES_PER_SECOND_WHILE_ANALYSING = 10;
export const DELIVERY_YIELD_MAX_MS = 10_000;

export function createDeliveryGate(opts: {
  ratePerSecond: number;
  maxWaitMs: number;
  now?: () => number;
  /** Followed for busy/idle, and watched before each attempt so that its pending batches are fresh. */
  analysis?: AnalysisActivity;
}): DeliveryGate {
  const now = opts.now ?? Date.now;
  const interval = 1_000 / opts.ratePerSecond;
  let busy = false;
  let nextAt = 0;
  let released: (() => void) | undefined;
  let idle: Promise<void> = Promise.resolve();
  const gate: DeliveryGate = {
    setBusy(b) {
      if (b === busy) return;
      busy = b;
      if (b) {
        idle = new Promise((resolve) => (released = resolve));
      } else {
        // Everyone waiting goes now; the next busy spell starts its spacing afresh.
        released?.();
        nextAt = 0;
      }
    },
    async pass() {
      await opts.analysis?.watch();
      if (!busy) return;
      const t = now();
      const at = Math.max(t, nextAt);
      nextAt = at + interval;
      const wait = Math.min(at - t, opts.maxWaitMs);
      if (wait <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    },
  };
  if (opts.analysis) {
    gate.setBusy(opts.analysis.busy());
    opts.analysis.onChange((b) => gate.setBusy(b));
  }
  return gate;
}
