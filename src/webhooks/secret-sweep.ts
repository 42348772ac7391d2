import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { forgetExpiredKeys } from '../idempotency.js';

/**
 * Erases the previous secrets of rotations whose overlap has ended. Deliveries already ignore an
 * expired previous secret (deliver-attempt.ts reads `previous_secret_expires_at > now()`); this
 * removes it from the database too, so a later leak of the table holds one secret per webhook.
 */
async function erasePreviousSecrets(db: Db): Promise<number> {
  return db('webhooks')
    .where('previous_secret_expires_at', '<=', db.fn.now())
    .update({ previous_secret_sealed: null, previous_secret_expires_at: null });
}

/**
 * Forgets rows whose meaning has run out: delivery slot leases an hour past their end (a deleted
 * webhook's or tenant's would stay otherwise) and failed-authentication buckets untouched for a
 * day, longer than any AUTH_FAILURE_WINDOW_MS (a scan from many addresses must not grow the table
 * for ever). Both tables are unlogged and only bounded by this.
 */
export async function forgetExpiredRows(db: Db): Promise<void> {
  await db('delivery_slots').where('expires_at', '<', db.raw(`now() - interval '1 hour'`)).delete();
  await db('auth_failures').where('at', '<', db.raw(`now() - interval '1 day'`)).delete();
}

/**
 * Runs the sweep every `everyMs` (default 5 s) in the worker role, with expired Idempotency-Key
 * answers (a rotation's holds a sealed secret) and expired leases and buckets; answers a stop
 * function.
 */
export function startSecretSweep(deps: { db: Db; log: Logger; everyMs?: number }): () => void {
  const timer = setInterval(() => {
    erasePreviousSecrets(deps.db).then(
      (n) => n > 0 && deps.log.info('previous webhook secrets erased after their overlap', { webhooks: n }),
      (err: unknown) => deps.log.warn('secret sweep failed; next run retries', { err: (err as Error).message }),
    );
    forgetExpiredKeys(deps.db).catch((err: unknown) =>
      deps.log.warn('idempotency key sweep failed; next run retries', { err: (err as Error).message }),
    );
    forgetExpiredRows(deps.db).catch((err: unknown) =>
      deps.log.warn('lease and bucket sweep failed; next run retries', { err: (err as Error).message }),
    );
  }, deps.everyMs ?? 5_000);
  timer.unref();
  return () => clearInterval(timer);
}
