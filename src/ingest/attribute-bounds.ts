import type { Db } from '../db/knex.js';
import { quotaExceeded } from '../errors.js';
import type { BatchItem, Scalar } from './validate-batch.js';

/**
 * What one user's attributes may hold once every submission is merged into them (a submission
 * alone may carry 50 keys): like Segment's trait limits, a documented ceiling, so that a tenant
 * cannot grow one row without end (each fold rewrites the row: its cost, its WAL and every read of
 * the profile grow with it). A profile answer then weighs at most about these bytes plus its
 * aggregates, and a list of 100 profiles at most about 100 times that.
 */
export const MAX_USER_ATTRIBUTES = 200;
/** Bytes of the merged attributes, counted as UTF-8 key plus the value's JSON text, per key. */
export const MAX_USER_ATTRIBUTE_BYTES = 32 * 1024;

/** The measure both the api (here) and the fold (SQL, process-chunk.ts) apply. */
export function attributeWeight(attributes: Record<string, unknown>): { keys: number; bytes: number } {
  let bytes = 0;
  const keys = Object.keys(attributes);
  for (const key of keys) bytes += Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(attributes[key]));
  return { keys: keys.length, bytes };
}

export function withinAttributeBounds(w: { keys: number; bytes: number }): boolean {
  return w.keys <= MAX_USER_ATTRIBUTES && w.bytes <= MAX_USER_ATTRIBUTE_BYTES;
}

/**
 * Refuses (422, naming `users[i].attributes`) a submission that would take a user's attributes past
 * the bounds: what is stored, merged with this batch's items of that user in their order, as the
 * fold will merge them. Nothing is stored when it refuses.
 */
export async function checkMergedAttributes(db: Db, projectId: number, items: BatchItem[]): Promise<void> {
  const growing = [...new Set(items.filter((i) => Object.keys(i.attributes).length > 0).map((i) => i.user_id))];
  if (growing.length === 0) return;
  const rows: { user_id: string; attributes: Record<string, Scalar> | null }[] = await db('users')
    .where({ project_id: projectId })
    .whereIn('user_id', growing)
    .select('user_id', 'attributes');
  const merged = new Map<string, Record<string, Scalar>>(rows.map((r) => [r.user_id, r.attributes ?? {}]));
  items.forEach((item, i) => {
    if (Object.keys(item.attributes).length === 0) return;
    const next = { ...merged.get(item.user_id), ...item.attributes };
    const w = attributeWeight(next);
    if (!withinAttributeBounds(w)) {
      throw quotaExceeded(
        `users[${i}].attributes`,
        `a user's attributes, merged with those already stored, may hold at most ${MAX_USER_ATTRIBUTES} keys and ` +
          `${MAX_USER_ATTRIBUTE_BYTES} bytes; user ${JSON.stringify(item.user_id).slice(0, 80)} would have ` +
          `${w.keys} keys and ${w.bytes} bytes`,
      );
    }
    merged.set(item.user_id, next);
  });
}
