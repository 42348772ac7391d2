import autocannon from 'autocannon';
import type pg from 'pg';
import { listSql, type ProfileFilters } from '../src/profiles/profile-counts.js';
import { encodeCursor } from '../src/profiles/read-profiles.js';

/** The `next_after` a client would hold after reading `n` profiles of the project. */
async function cursorAt(
  db: pg.Client,
  projectId: number,
  n: number,
): Promise<{ cursor: string; after: { updatedAtMicros: number; userId: string } }> {
  const { rows } = await db.query(
    `SELECT (extract(epoch FROM updated_at) * 1000000)::bigint::text AS micros, user_id FROM users
      WHERE project_id = $1 AND aggregates IS NOT NULL ORDER BY updated_at DESC, user_id ASC OFFSET $2 - 1 LIMIT 1`,
    [projectId, n],
  );
  const after = { updatedAtMicros: Number(rows[0].micros), userId: rows[0].user_id as string };
  return { cursor: encodeCursor(after.updatedAtMicros, after.userId), after };
}

/**
 * Scenario 4: one project seeded with `n` profiles directly in SQL (not through the pipeline), then
 * the gateway loaded with autocannon for every filter combination, at 1 and 50 connections,
 * plus EXPLAIN evidence of which index serves each combination.
 */
export async function readsAtScale(args: {
  db: pg.Client;
  gatewayUrl: string;
  key: string;
  projectId: number;
  sampleUserId: string;
  sampleProjectId: number;
  sampleKey: string;
  n: number;
  durationSec: number;
}) {
  const { db } = args;
  const seedStart = Date.now();
  await db.query(
    `INSERT INTO users (project_id, user_id, attributes, source_label, created_at, updated_at, message_count,
                        churn_risk_score, sentiment_trend, aggregates)
     SELECT $1, 'seed-' || g, '{"plan":"pro"}', 'seed', now() - g * interval '1 second', now() - g * interval '1 second',
            1 + g % 10, (g % 1000) / 1000.0, (ARRAY['improving','stable','declining'])[1 + g % 3],
            jsonb_build_object('window_size', 1 + g % 10, 'avg_sentiment', ((g % 200) - 100) / 100.0,
              'sentiment_trend', (ARRAY['improving','stable','declining'])[1 + g % 3], 'top_topics', '["pricing"]'::jsonb,
              'topic_scores', '{"pricing": 1}'::jsonb, 'intentions_summary', '[]'::jsonb, 'negative_ratio', 0.5,
              'churn_risk_score', (g % 1000) / 1000.0, 'churn_risk_factors', '{"negative_sentiment":0.5,"declining_trend":0,"churn_intent":0}'::jsonb,
              'price_sensitive_ratio', 0, 'message_frequency_days', null)
     FROM generate_series(1, $2) g`,
    [args.projectId, args.n],
  );
  // As autovacuum would in production: statistics and the visibility map for index-only scans.
  await db.query('VACUUM (ANALYZE) users');
  await db.query('VACUUM (ANALYZE) profile_counts');
  const seedSeconds = (Date.now() - seedStart) / 1000;

  const p = args.projectId;
  const deep = await cursorAt(db, p, 10_000);
  const lists: Record<string, string> = {
    'no filter': '',
    churn_risk_gte: '&churn_risk_gte=0.9',
    churn_risk_lte: '&churn_risk_lte=0.1',
    sentiment_trend: '&sentiment_trend=declining',
    min_messages: '&min_messages=9',
    'all filters': '&churn_risk_gte=0.5&churn_risk_lte=0.6&sentiment_trend=stable&min_messages=5',
    'offset 10000': '&offset=10000',
    // The same page by keyset (`after`, the extension): the cursor of the 10,000th profile.
    'after the 10000th': `&after=${deep.cursor}`,
  };
  const urls: Record<string, string> = Object.fromEntries(
    Object.entries(lists).map(([name, q]) => [
      `list: ${name}`,
      `${args.gatewayUrl}/api/v1/profiles?project_id=${p}${q}`,
    ]),
  );
  urls['get profile'] = `${args.gatewayUrl}/api/v1/profiles/${args.sampleUserId}?project_id=${args.sampleProjectId}`;
  urls['timeline'] =
    `${args.gatewayUrl}/api/v1/profiles/${args.sampleUserId}/timeline?project_id=${args.sampleProjectId}`;

  // EXPLAIN the very statement the service runs (listSql in src/profiles/profile-counts.ts).
  const tenantId = Number((await db.query('SELECT tenant_id FROM projects WHERE id = $1', [p])).rows[0].tenant_id);
  const explain: Record<string, string[]> = {};
  for (const [name, q] of Object.entries(lists)) {
    const params = new URLSearchParams(q.slice(1));
    const num = (k: string) => (params.get(k) === null ? undefined : Number(params.get(k)));
    const filters: ProfileFilters = {
      churnGte: num('churn_risk_gte'),
      churnLte: num('churn_risk_lte'),
      trend: params.get('sentiment_trend') ?? undefined,
      minMessages: num('min_messages'),
    };
    const list = listSql(tenantId, {
      projectId: p,
      filters,
      limit: 20,
      offset: num('offset') ?? 0,
      ...(params.has('after') && { after: deep.after }),
      columns: ['user_id', 'aggregates', 'updated_at'],
    });
    const plan = async (sql: string, bindings: unknown[]) => {
      let i = 0;
      const text = sql.replace(/\?/g, () => `$${++i}`);
      const r = await db.query(`EXPLAIN ${text}`, bindings);
      return (r.rows as { 'QUERY PLAN': string }[])
        .map((row) => row['QUERY PLAN'])
        .filter((l) => /Scan/.test(l))
        .map((l) => l.trim());
    };
    explain[name] = await plan(list.sql, list.bindings);
  }

  const load: Record<string, Record<string, { p50: number; p99: number; rps: number; non2xx: number }>> = {};
  for (const [name, url] of Object.entries(urls)) {
    load[name] = {};
    for (const connections of [1, 50]) {
      const key = name === 'get profile' || name === 'timeline' ? args.sampleKey : args.key;
      const r = await autocannon({ url, connections, duration: args.durationSec, headers: { 'X-API-Key': key } });
      load[name][`c${connections}`] = {
        p50: r.latency.p50,
        p99: r.latency.p99,
        rps: r.requests.average,
        non2xx: r.non2xx,
      };
    }
  }
  return { profiles: args.n, seedSeconds, explain, load };
}
