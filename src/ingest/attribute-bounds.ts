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
/**
 * Bytes of the merged attributes, measured ONE way everywhere: per key, the key's UTF-8 bytes plus
 * the UTF-8 bytes of the value's text as PostgreSQL prints the stored jsonb (`value::text`). That is
 * the row's real size, and what the fold measures in SQL (ATTRIBUTE_ENTRY_BYTES_SQL); the api
 * computes the same number here before it answers (attributeValueText; proved equal on generated
 * values by test/integration/attribute-weight.test.ts). It differs from JSON.stringify for numbers:
 * jsonb keeps them as `numeric`, printed without an exponent, so `1e300` is 301 bytes, `1.5e-7` 10.
 */
export const MAX_USER_ATTRIBUTE_BYTES = 32 * 1024;

/** One attribute's bytes in SQL, over a `jsonb_each` row: the fold's measure (process-chunk.ts). */
export const ATTRIBUTE_ENTRY_BYTES_SQL = 'octet_length(key) + octet_length(value::text)';

/**
 * A finite number as PostgreSQL's `numeric` prints it from jsonb: the service sends JavaScript's
 * shortest round-trip text (JSON.stringify), numeric_in keeps exactly those digits with a display
 * scale of (digits after the point - exponent), and numeric_out writes them out in full. So the
 * text is that string's plain decimal expansion: `1e+21` is `1` and 21 zeros, `1.5e-7` is
 * `0.00000015`; `-0` is `0` (JSON.stringify already writes it so).
 */
export function numericText(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const sign = s.startsWith('-') ? '-' : '';
  const [int, frac = ''] = s.slice(sign.length, e).split('.');
  const digits = int + frac;
  const point = int.length + Number(s.slice(e + 1));
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * An attribute value's text as PostgreSQL prints it from jsonb. Strings: PostgreSQL's escape_json
 * escapes exactly what JSON.stringify does (`"`, `\`, \b \f \n \r \t, other controls as lowercase
 * \u00xx) and writes everything else as UTF-8; the two differ only on NUL and unpaired surrogates,
 * which a submission cannot carry (validate-batch.ts) and jsonb refuses anyway.
 */
export function attributeValueText(value: Scalar): string {
  if (typeof value === 'number') return Number.isFinite(value) ? numericText(value) : 'null';
  return JSON.stringify(value);
}

const entryBytes = (key: string, value: Scalar) =>
  Buffer.byteLength(key) + Buffer.byteLength(attributeValueText(value));

/** The measure both the api (here) and the fold (SQL, process-chunk.ts) apply. */
export function attributeWeight(attributes: Record<string, Scalar>): { keys: number; bytes: number } {
  let bytes = 0;
  const keys = Object.keys(attributes);
  for (const key of keys) bytes += entryBytes(key, attributes[key]);
  return { keys: keys.length, bytes };
}

export function withinAttributeBounds(w: { keys: number; bytes: number }): boolean {
  return w.keys <= MAX_USER_ATTRIBUTES && w.bytes <= MAX_USER_ATTRIBUTE_BYTES;
}

/**
 * The most one user's attributes can weigh after any of its pending folds, whatever their order:
 * each fold merges one item's attributes into the row, in submission order or not (process-chunk.ts),
 * so every state the row passes through holds a subset of the candidates' keys, each with one of
 * its candidate values. Counting every key once with its largest candidate bounds them all.
 */
export class AttributeCeiling {
  private readonly largest = new Map<string, number>();
  private bytes = 0;

  add(attributes: Record<string, Scalar>): void {
    for (const [key, value] of Object.entries(attributes)) {
      const size = entryBytes(key, value);
      const before = this.largest.get(key) ?? 0;
      if (size > before) {
        this.largest.set(key, size);
        this.bytes += size - before;
      }
    }
  }

  weight(): { keys: number; bytes: number } {
    return { keys: this.largest.size, bytes: this.bytes };
  }
}

/**
 * Refuses (422, naming `users[i].attributes`) a submission that could take a user's attributes past
 * the bounds at any fold: the ceiling of what is stored, the user's items of batches not yet folded,
 * and this batch's items of that user up to i. The caller holds the tenant's batch lock (every
 * submission of the tenant serialises on it, identify-users.ts), so no batch can be stored between
 * this check and this one's: every batch in flight is counted, and the fold's own guard is left
 * for rows stored before the api measured this way. Nothing is stored when it refuses.
 * `skip`: indexes of items that will not be stored (suppressed users).
 */
export async function checkMergedAttributes(
  db: Db,
  projectId: number,
  items: BatchItem[],
  skip: ReadonlySet<number> = new Set(),
): Promise<void> {
  const growing = (i: number) => !skip.has(i) && Object.keys(items[i].attributes).length > 0;
  const users = [...new Set(items.filter((_, i) => growing(i)).map((item) => item.user_id))];
  if (users.length === 0) return;
  const ceilings = new Map<string, AttributeCeiling>(users.map((u) => [u, new AttributeCeiling()]));
  for (const row of await pendingAttributes(db, projectId, users)) ceilings.get(row.user_id)?.add(row.attributes);
  items.forEach((item, i) => {
    if (!growing(i)) return;
    const ceiling = ceilings.get(item.user_id)!;
    ceiling.add(item.attributes);
    const w = ceiling.weight();
    if (!withinAttributeBounds(w)) {
      throw quotaExceeded(
        `users[${i}].attributes`,
        `a user's attributes, merged with those stored and those of its batches still being analysed, may hold ` +
          `at most ${MAX_USER_ATTRIBUTES} keys and ${MAX_USER_ATTRIBUTE_BYTES} bytes (each key's UTF-8 bytes plus ` +
          `its value's text as stored: numbers written out in full, without exponent); user ` +
          `${JSON.stringify(item.user_id).slice(0, 80)} could reach ${w.keys} keys and ${w.bytes} bytes`,
      );
    }
  });
}

/**
 * The users' stored attributes and those of their items not yet folded (a batch not completed, no
 * message yet, neither failed nor erased), read in ONE statement: a fold commits its message and
 * the user's row together, so one snapshot sees each item either pending or merged, never neither.
 * Driven by the project's batches in flight (sources_in_flight), each read by its own key: it runs
 * under the tenant's batch lock, so its cost is bounded by TENANT_BATCHES_IN_FLIGHT × 1,000 items,
 * never by the users' whole histories (source_items_user spans every project and every batch).
 */
async function pendingAttributes(
  db: Db,
  projectId: number,
  users: string[],
): Promise<{ user_id: string; attributes: Record<string, Scalar> }[]> {
  const { rows } = await db.raw(
    `WITH wanted AS (SELECT jsonb_array_elements_text(?::jsonb) AS user_id)
     SELECT user_id, attributes FROM users WHERE project_id = ? AND user_id IN (SELECT user_id FROM wanted)
     UNION ALL
     SELECT si.user_id, si.attributes
       FROM (SELECT id FROM sources WHERE project_id = ? AND completed_at IS NULL) s
       CROSS JOIN LATERAL (
         SELECT si.user_id, si.attributes, si.idx FROM source_items si
          WHERE si.source_id = s.id AND si.user_id IN (SELECT user_id FROM wanted)
            AND si.attributes <> '{}'::jsonb AND si.error IS NULL AND si.skipped IS NULL) si
      WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = s.id AND m.item_idx = si.idx)`,
    [JSON.stringify(users), projectId, projectId],
  );
  return (rows as { user_id: string; attributes: Record<string, Scalar> | null }[]).map((r) => ({
    user_id: r.user_id,
    attributes: r.attributes ?? {},
  }));
}
