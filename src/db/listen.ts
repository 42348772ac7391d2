import pg from 'pg';
import type { Logger } from '../observability/logger.js';

/**
 * Keeps one LISTEN connection on `channel`, reconnecting every `retryMs` after a loss. A pool
 * connection cannot LISTEN (it goes back to the pool), so this is a client of its own. `onUp` and
 * `onDown` say when notifications can (and can no longer) be relied on: the key cache serves only
 * while listening, the relay falls back to polling.
 */
export function listenTo(deps: {
  databaseUrl: string;
  channel: string;
  onNotify: () => void;
  onUp?: () => void;
  onDown?: () => void;
  log: Logger;
  /** What the log line says is lost meanwhile. */
  whileDown: string;
  retryMs?: number;
}): { stop(): Promise<void> } {
  let client: pg.Client | null = null;
  let stopped = false;
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    deps.onDown?.();
    c.end().catch(() => undefined);
  };
  const connect = async () => {
    const c = new pg.Client({ connectionString: deps.databaseUrl });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    c.on('notification', () => deps.onNotify());
    client = c;
    try {
      await c.connect();
      await c.query(`LISTEN ${deps.channel}`);
      if (client === c && !stopped) deps.onUp?.();
    } catch (err) {
      deps.log.warn(`LISTEN ${deps.channel} failed: ${deps.whileDown} until it reconnects`, {
        err: (err as Error).message,
      });
      lost(c);
    }
  };
  void connect();
  const timer = setInterval(() => {
    if (!client && !stopped) void connect();
  }, deps.retryMs ?? 5_000);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      const c = client;
      client = null;
      deps.onDown?.();
      await c?.end().catch(() => undefined);
    },
  };
}
