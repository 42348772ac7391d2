import { randomUUID } from 'node:crypto';
import type { Db } from '../db/knex.js';

/**
 * Leases one slot under each of two keys (a webhook's and its tenant's) in one statement, or none:
 * the bounds hold across every delivery worker (migration 011). For each key the first slot below
 * its bound that no live lease holds is taken; a slot is taken over only when its lease expired.
 * Two attempts racing for the same free slot: one wins, the other is told the key is full even if
 * a higher slot was free (it comes back a moment later) — a bound is never exceeded.
 * Answers the lease's holder id, or undefined when a key is full.
 */
export async function leaseSlots(
  db: Db,
  keys: [{ key: string; bound: number }, { key: string; bound: number }],
  leaseMs: number,
): Promise<string | undefined> {
  const holder = randomUUID();
  const [a, b] = keys;
  const { rows } = await db.raw(
    `WITH a AS (
       SELECT s FROM generate_series(0, ?::int - 1) s
        WHERE NOT EXISTS (SELECT 1 FROM delivery_slots d WHERE d.key = ? AND d.slot = s AND d.expires_at > now())
        LIMIT 1
     ), b AS (
       SELECT s FROM generate_series(0, ?::int - 1) s
        WHERE NOT EXISTS (SELECT 1 FROM delivery_slots d WHERE d.key = ? AND d.slot = s AND d.expires_at > now())
        LIMIT 1
     ), taken AS (
       INSERT INTO delivery_slots (key, slot, holder, expires_at)
       SELECT k, s, ?::uuid, now() + ? * interval '1 millisecond'
         FROM (SELECT ?::text AS k, a.s FROM a, b UNION ALL SELECT ?::text, b.s FROM a, b) pick
       ON CONFLICT (key, slot) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
        WHERE delivery_slots.expires_at <= now()
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM taken`,
    [a.bound, a.key, b.bound, b.key, holder, leaseMs, a.key, b.key],
  );
  if (rows[0].n === 2) return holder;
  // Lost one of the two to a racing attempt: give back the other.
  if (rows[0].n === 1) await releaseSlots(db, holder);
  return undefined;
}

export async function releaseSlots(db: Db, holder: string): Promise<void> {
  await db('delivery_slots').where({ holder }).delete();
}
