import type { Knex } from 'knex';

/** Bins of migration 002: churn 0.01 wide (0..100, -1 for no score), message count capped at 21. */
export const CHURN_BINS = 100;
export const MSG_BIN_CAP = 21;
// Wider than any rounding of floor(score * 100): a score binned across an edge lies within this of it.
const SLACK = 1e-6;

export interface ProfileFilters {
  churnGte?: number;
  churnLte?: number;
  trend?: string;
  minMessages?: number;
}

/**
 * The churn bins summed for a filter: [lo, hi], empty when lo > hi. lo is the first bin starting
 * at or above churn_risk_gte, hi the last bin ending at or below churn_risk_lte; the rows a float
 * edge puts on the wrong side are corrected by `countSql` from the index.
 */
export function summedChurnBins(gte?: number, lte?: number): [number, number] {
  // Bin -1 holds profiles without a score: any churn filter excludes them.
  let lo = gte === undefined && lte === undefined ? -1 : 0;
  let hi = CHURN_BINS;
  if (gte !== undefined) {
    lo = CHURN_BINS + 1;
    for (let b = 0; b <= CHURN_BINS; b++) {
      if (b / CHURN_BINS >= gte) {
        lo = b;
        break;
      }
    }
  }
  if (lte !== undefined) {
    hi = -2;
    for (let b = CHURN_BINS; b >= 0; b--) {
      if ((b === CHURN_BINS ? 1 : (b + 1) / CHURN_BINS) <= lte) {
        hi = b;
        break;
      }
    }
  }
  return [lo, hi];
}

/** WHERE clause of the exact filters on `users`, shared by the page and the edge counts. */
export function filterSql(projectId: number, f: ProfileFilters): { sql: string; bindings: Knex.Value[] } {
  const parts = ['project_id = ?', 'aggregates IS NOT NULL'];
  const bindings: Knex.Value[] = [projectId];
  const conditions: [Knex.Value | undefined, string][] = [
    [f.churnGte, 'churn_risk_score >= ?'],
    [f.churnLte, 'churn_risk_score <= ?'],
    [f.trend, 'sentiment_trend = ?'],
    [f.minMessages, 'message_count >= ?'],
  ];
  for (const [value, sql] of conditions) {
    if (value === undefined) continue;
    parts.push(sql);
    bindings.push(value);
  }
  return { sql: parts.join(' AND '), bindings };
}

/**
 * One statement (one snapshot, so the trigger's deltas and the rows agree) that counts the
 * profiles matching the filters exactly: the summary bins [lo, hi], minus the rows in them below
 * churn_risk_gte, plus the matching rows binned outside them. Each correction reads a
 * narrow score range next to a bound from the covering churn index (empty for round bounds).
 */
export function countSql(projectId: number, f: ProfileFilters): { sql: string; bindings: Knex.Value[] } {
  const where = filterSql(projectId, f);
  const [lo, hi] = summedChurnBins(f.churnGte, f.churnLte);
  const minMessages = f.minMessages ?? 0;
  if (lo > hi || minMessages > MSG_BIN_CAP) {
    // No whole bin qualifies (a band inside one bin, or more messages than the bins distinguish).
    return { sql: `SELECT count(*)::bigint AS total FROM users WHERE ${where.sql}`, bindings: where.bindings };
  }
  const base = filterSql(projectId, { trend: f.trend, minMessages: f.minMessages });
  const terms: string[] = [];
  const bindings: Knex.Value[] = [];
  const summary = ['project_id = ?', 'churn_bin BETWEEN ? AND ?', 'msg_bin >= ?'];
  bindings.push(projectId, lo, hi, minMessages);
  if (f.trend !== undefined) {
    summary.push('sentiment_trend = ?');
    bindings.push(f.trend);
  }
  terms.push(`+ (SELECT coalesce(sum(delta), 0) FROM profile_counts WHERE ${summary.join(' AND ')})`);
  const count = (sign: '+' | '-', w: { sql: string; bindings: Knex.Value[] }, extra: string, values: Knex.Value[]) => {
    terms.push(`${sign} (SELECT count(*) FROM users WHERE ${w.sql} AND ${extra})`);
    bindings.push(...w.bindings, ...values);
  };
  const binned = 'profile_churn_bin(churn_risk_score)';
  if (lo >= 0) count('+', where, `churn_risk_score < ? AND ${binned} < ?`, [lo / CHURN_BINS + SLACK, lo]);
  if (f.churnLte !== undefined)
    count('+', where, `churn_risk_score > ? AND ${binned} > ?`, [(hi + 1) / CHURN_BINS - SLACK, hi]);
  if (f.churnGte !== undefined) {
    count('-', base, `churn_risk_score < ? AND churn_risk_score >= ? AND ${binned} BETWEEN ? AND ?`, [
      f.churnGte,
      lo / CHURN_BINS - SLACK,
      lo,
      hi,
    ]);
  }
  // No term subtracts summed rows above churn_risk_lte: a score above the float (hi + 1) / 100 never
  // floors into bin hi or below (profile-counts.test.ts checks every edge), only scores below an edge
  // are ever binned across it.
  return { sql: `SELECT (0 ${terms.join(' ')})::bigint AS total`, bindings };
}

/** The list's orders (extension `sort`); `updated_at` is the documented one and the default. */
export const PROFILE_SORTS = ['updated_at', 'churn_risk'] as const;
export type ProfileSort = (typeof PROFILE_SORTS)[number];

/**
 * Each order is the key of a covering index, then user_id so pages never overlap: users_list for
 * `updated_at`, users_churn_page (migration 014) for `churn_risk`, so a page reads its ids in order
 * from the index instead of sorting the project.
 */
const SORT_KEYS: Record<ProfileSort, { column: string; direction: string }> = {
  updated_at: { column: 'updated_at', direction: 'DESC' },
  churn_risk: { column: 'churn_risk_score', direction: 'DESC NULLS LAST' },
};

function orderBy(sort: ProfileSort, key: string, userId: string): string {
  return `${key} ${SORT_KEYS[sort].direction}, ${userId} ASC`;
}

/** One page of a project's profiles: which, how many, in which order, and the columns to read. */
export interface ProfilePage {
  projectId: number;
  filters: ProfileFilters;
  limit: number;
  offset: number;
  columns: string[];
  /** Default `updated_at`. */
  sort?: ProfileSort;
  /** Keyset paging, `updated_at` order only: the page starts after this profile (offset is then 0). */
  after?: { updatedAtMicros: number; userId: string };
}

/**
 * Page of profile ids from the covering index, then the rows; same order as the index. Each row
 * carries its sort key (`sort_key`) for the list's final order, and its `updated_at` in
 * microseconds (`after_micros`), exact, for the next page's cursor. After a cursor,
 * `updated_at <= t` bounds the index scan (it starts at t, however deep), and the rows at exactly
 * t up to the cursor's user id are left out.
 */
function pageSql({ projectId, filters, limit, offset, columns, sort = 'updated_at', after }: ProfilePage): {
  sql: string;
  bindings: Knex.Value[];
} {
  const where = filterSql(projectId, filters);
  const key = SORT_KEYS[sort].column;
  const cols = columns.map((c) => `u.${c}`).join(', ');
  const at = `('epoch'::timestamptz + ?::bigint * interval '1 microsecond')`;
  const keyset = after ? ` AND updated_at <= ${at} AND NOT (updated_at = ${at} AND user_id <= ?)` : '';
  const keysetBindings = after ? [after.updatedAtMicros, after.updatedAtMicros, after.userId] : [];
  return {
    sql:
      `SELECT ${cols}, page.${key} AS sort_key, (extract(epoch FROM u.updated_at) * 1000000)::bigint AS after_micros ` +
      `FROM (SELECT id, ${key}, user_id FROM users WHERE ${where.sql}${keyset} ` +
      `ORDER BY ${orderBy(sort, key, 'user_id')} LIMIT ? OFFSET ?) page JOIN users u ON u.id = page.id ` +
      `ORDER BY ${orderBy(sort, `page.${key}`, 'page.user_id')}`,
    bindings: [...where.bindings, ...keysetBindings, limit, offset],
  };
}

/** Folds the delta rows into one row per bin, so the summary stays as small as the bins in use. */
export async function compactProfileCounts(db: Knex): Promise<number> {
  return db.transaction(async (trx) => {
    const { rows } = await trx.raw('SELECT pg_try_advisory_xact_lock(7270002) AS locked');
    if (!rows[0].locked) return 0;
    // Nothing to fold when every bin already has one row: skip the rewrite (and its dead tuples).
    const pending = await trx.raw(
      'SELECT 1 FROM profile_counts GROUP BY project_id, sentiment_trend, churn_bin, msg_bin HAVING count(*) > 1 OR sum(delta) = 0 LIMIT 1',
    );
    if (pending.rows.length === 0) return 0;
    const result = await trx.raw(`
      WITH gone AS (DELETE FROM profile_counts RETURNING *)
      INSERT INTO profile_counts (project_id, sentiment_trend, churn_bin, msg_bin, delta)
      SELECT project_id, sentiment_trend, churn_bin, msg_bin, sum(delta) FROM gone
      GROUP BY 1, 2, 3, 4 HAVING sum(delta) <> 0`);
    return result.rowCount ?? 0;
  });
}

/**
 * The whole list in ONE statement: the tenant check, the exact total and the page. It always
 * yields at least one row (the total, with null page columns when the page is empty) unless the
 * project is not the tenant's, when it yields none. One round trip instead of three matters at
 * 50 concurrent clients, where every statement costs CPU on both sides of the connection.
 */
export function listSql(tenantId: number, q: ProfilePage): { sql: string; bindings: Knex.Value[] } {
  const { projectId } = q;
  const count = countSql(projectId, q.filters);
  const page = pageSql(q);
  return {
    sql:
      `SELECT c.total, p.* FROM (${count.sql}) c LEFT JOIN LATERAL (${page.sql}) p ON true ` +
      `WHERE EXISTS (SELECT 1 FROM projects WHERE id = ? AND tenant_id = ?) ORDER BY ${orderBy(q.sort ?? 'updated_at', 'p.sort_key', 'p.user_id')}`,
    bindings: [...count.bindings, ...page.bindings, projectId, tenantId],
  };
}
