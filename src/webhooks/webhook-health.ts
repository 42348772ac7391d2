import type { Db } from '../db/knex.js';

/** A webhook's health after an attempt: a 410 deactivates it, five days of failures too. */

/** Deactivates a webhook with a reason; answers the reason if this call did it (once). */
export async function disable(db: Db, webhookId: number, reason: string): Promise<string | undefined> {
  const rows = await db('webhooks')
    .where({ id: webhookId, is_active: true })
    .update({ is_active: false, disabled_reason: reason, updated_at: db.fn.now() })
    .returning('id');
  return rows.length > 0 ? reason : undefined;
}

/**
 * A webhook whose deliveries have all failed this long is deactivated. Five days, as Svix: long
 * enough to outlast a weekend outage and the whole retry schedule of one event (about 27 h), so an
 * operator has no reason to tune it (a constant, not a variable).
 */
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 3600 * 1000;

/**
 * Auto-disable: a success clears `failing_since`; a failure starts it if needed, and a webhook
 * whose deliveries have all failed for WEBHOOK_DISABLE_AFTER_MS is deactivated (as Svix does).
 */
export async function trackFailures(
  deps: { db: Db },
  webhookId: number,
  ok: boolean,
  wasFailing: boolean,
): Promise<string | undefined> {
  const { db } = deps;
  if (ok) {
    // The webhook was read just before the POST: a healthy one (the usual case) costs no write.
    if (wasFailing) {
      await db('webhooks').where({ id: webhookId }).whereNotNull('failing_since').update({ failing_since: null });
    }
    return undefined;
  }
  const [row] = await db('webhooks')
    .where({ id: webhookId })
    .update({ failing_since: db.raw('coalesce(failing_since, now())') })
    .returning([db.raw('extract(epoch FROM now() - failing_since) * 1000 AS failing_ms'), 'failing_since']);
  if (!row || Number(row.failing_ms) < WEBHOOK_DISABLE_AFTER_MS) return undefined;
  return disable(db, webhookId, `every delivery failed since ${(row.failing_since as Date).toISOString()} (5 days)`);
}
