import { Gauge } from 'prom-client';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { PREFIX, registry } from './registry.js';

/**
 * A scrape must answer even when PostgreSQL is slow: past this the query is cancelled and the
 * gauges read NaN for that scrape (and a warning is logged), never a stale value.
 */
export const OUTBOX_QUERY_TIMEOUT_MS = 1_000;

/**
 * Outbox rows not yet dispatched and the age of the oldest, read from PostgreSQL on each scrape
 * (both from the partial index `outbox_pending`, so cheap however large the table). The outbox is
 * shared by every process: each process reports the same figures; aggregate with max().
 */
export function registerOutboxGauges(db: Db, log: Logger): void {
  let reading: Promise<void> | undefined;
  let pendingValue = NaN;
  let ageValue = NaN;
  // Both gauges collect from one query per scrape.
  const read = () =>
    (reading ??= (async () => {
      try {
        const { rows } = await db
          .raw(
            `SELECT (SELECT count(*) FROM outbox WHERE dispatched_at IS NULL) AS pending,
                    (SELECT extract(epoch FROM now() - created_at) FROM outbox
                      WHERE dispatched_at IS NULL ORDER BY id LIMIT 1) AS oldest_s`,
          )
          .timeout(OUTBOX_QUERY_TIMEOUT_MS, { cancel: true });
        pendingValue = Number(rows[0].pending);
        ageValue = rows[0].oldest_s === null ? 0 : Number(rows[0].oldest_s);
      } catch (err) {
        pendingValue = ageValue = NaN;
        log.warn('outbox metrics not read', { err: (err as Error).message });
      }
    })().finally(() => {
      reading = undefined;
    }));
  new Gauge({
    name: `${PREFIX}outbox_pending`,
    help: 'Outbox rows (deliveries of events to webhooks) not yet started; NaN when the query failed',
    registers: [registry],
    async collect() {
      await read();
      this.set(pendingValue);
    },
  });
  new Gauge({
    name: `${PREFIX}outbox_oldest_pending_seconds`,
    help: 'Age of the oldest outbox row not yet started (0 when none); NaN when the query failed',
    registers: [registry],
    async collect() {
      await read();
      this.set(ageValue);
    },
  });
}
