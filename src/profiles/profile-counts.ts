import type { Knex } from 'knex';

/** Bins of migration 002: churn 0.01 wide (0..100, -1 for no score), message count capped at 21. */
export const CHURN_BINS = 100;
export const MSG_BIN_CAP = 21;
// A bin is only summed when every score the float expression can put in it satisfies the filter.
const EDGE = 1e-9;
const SLACK = 1e-6;

export interface ProfileFilters {
  churnGte?: number;
  churnLte?: number;
  trend?: string;
  minMessages?: number;
}

/** The churn bins a filter covers entirely: [lo, hi], empty when lo > hi. */
export function fullChurnBins(gte?: number, lte?: number): [number, number] {
  // Bin -1 holds profiles without a score: any churn filter excludes them.
  let lo = gte === undefined && lte === undefined ? -1 : 0;
  let hi = CHURN_BINS;
  if (gte !== undefined) {
    lo = CHURN_BINS + 1;
    for (let b = 0; b <= CHURN_BINS; b++) {
      if (b / CHURN_BINS - EDGE >= gte) {
        lo = b;
        break;
      }
    }
  }
  if (lte !== undefined) {
    hi = -2;
    for (let b = CHURN_BINS; b >= 0; b--) {
      const upper = b === CHURN_BINS ? 1 : (b + 1) / CHURN_BINS + EDGE;
      if (upper <= lte) {
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
  if (f.churnGte !== undefined) {
    parts.push('churn_risk_score >= ?');
    bindings.push(f.churnGte);
  }
  if (f.churnLte !== undefined) {
    parts.push('churn_risk_score <= ?');
    bindings.push(f.churnLte);
  }
  if (f.trend !== undefined) {
    parts.push('sentiment_trend = ?');
    bindings.push(f.trend);
  }
  if (f.minMessages !== undefined) {
    parts.push('message_count >= ?');
    bindings.push(f.minMessages);
  }
  return { sql: parts.join(' AND '), bindings };
}

/**
 * One statement (one snapshot, so the trigger's deltas and the rows agree) that counts the
 * profiles matching the filters exactly: the summary bins the filter covers entirely, plus the
 * rows of the edge bins counted from the covering churn index.
 */
export function countSql(projectId: number, f: ProfileFilters): { sql: string; bindings: Knex.Value[] } {
  const where = filterSql(projectId, f);
  const [lo, hi] = fullChurnBins(f.churnGte, f.churnLte);
  const minMessages = f.minMessages ?? 0;
  if (lo > hi || minMessages > MSG_BIN_CAP) {
    // No whole bin qualifies (a narrow churn band, or more messages than the bins distinguish).
    return { sql: `SELECT count(*)::bigint AS total FROM users WHERE ${where.sql}`, bindings: where.bindings };
  }
  const parts: string[] = [];
  const bindings: Knex.Value[] = [];
  const summary = ['project_id = ?', 'churn_bin BETWEEN ? AND ?', 'msg_bin >= ?'];
  bindings.push(projectId, lo, hi, minMessages);
  if (f.trend !== undefined) {
    summary.push('sentiment_trend = ?');
    bindings.push(f.trend);
  }
  parts.push(`(SELECT coalesce(sum(delta), 0) FROM profile_counts WHERE ${summary.join(' AND ')})`);
  if (lo > 0 && f.churnGte !== undefined) {
    parts.push(`(SELECT count(*) FROM users WHERE ${where.sql} AND churn_risk_score < ? AND profile_churn_bin(churn_risk_score) < ?)`);
    bindings.push(...where.bindings, lo / CHURN_BINS + SLACK, lo);
  }
  if (hi < CHURN_BINS && f.churnLte !== undefined) {
    parts.push(`(SELECT count(*) FROM users WHERE ${where.sql} AND churn_risk_score > ? AND profile_churn_bin(churn_risk_score) > ?)`);
    bindings.push(...where.bindings, (hi + 1) / CHURN_BINS - SLACK, hi);
  }
  return { sql: `SELECT (${parts.join(' + ')})::bigint AS total`, bindings };
}

/** Page of profile ids from the covering index, then the rows; same order as the index. */
export function pageSql(projectId: number, f: ProfileFilters, limit: number, offset: number, columns: string[]): { sql: string; bindings: Knex.Value[] } {
  const where = filterSql(projectId, f);
  const cols = columns.map((c) => `u.${c}`).join(', ');
  return {
    sql:
      `SELECT ${cols} FROM (SELECT id, updated_at, user_id FROM users WHERE ${where.sql} ` +
      `ORDER BY updated_at DESC, user_id ASC LIMIT ? OFFSET ?) page JOIN users u ON u.id = page.id ` +
      `ORDER BY page.updated_at DESC, page.user_id ASC`,
    bindings: [...where.bindings, limit, offset],
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
