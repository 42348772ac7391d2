import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { invalid, notFound } from '../errors.js';
import { requireProject } from '../projects/projects.js';
import { optionalInt, optionalNumber, requireId, requireStorable } from '../validation.js';
import type { Aggregates } from './aggregates.js';
import { countSql, pageSql, type ProfileFilters } from './profile-counts.js';

export interface ProfileView {
  user_id: string;
  source_label: string;
  attributes: Record<string, unknown>;
  aggregates: Aggregates & { message_count: number };
  created_at: Date;
  updated_at: Date;
}

export interface TimelineEntryView {
  timestamp: Date;
  source_label: string;
  sentiment: number;
  topics: string[];
  intentions: string[];
}

const TRENDS = ['improving', 'stable', 'declining'] as const;
const PROFILE_COLUMNS = ['user_id', 'source_label', 'attributes', 'aggregates', 'message_count', 'created_at', 'updated_at'];

function toProfile(row: Record<string, any>): ProfileView {
  return {
    user_id: row.user_id,
    source_label: row.source_label,
    attributes: row.attributes ?? {},
    aggregates: { ...row.aggregates, message_count: row.message_count },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface ListProfilesQuery {
  project_id?: unknown;
  limit?: unknown;
  offset?: unknown;
  churn_risk_gte?: unknown;
  churn_risk_lte?: unknown;
  sentiment_trend?: unknown;
  min_messages?: unknown;
}

export async function listProfiles(db: Db, caller: Caller, q: ListProfilesQuery): Promise<{ users: ProfileView[]; total: number }> {
  const projectId = requireId(q.project_id, 'project_id');
  const limit = optionalInt(q.limit, 'limit', 1, 100) ?? 20;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  const gte = optionalNumber(q.churn_risk_gte, 'churn_risk_gte', 0, 1);
  const lte = optionalNumber(q.churn_risk_lte, 'churn_risk_lte', 0, 1);
  const minMessages = optionalInt(q.min_messages, 'min_messages', 0, 1_000_000_000);
  let trend: string | undefined;
  if (q.sentiment_trend !== undefined && q.sentiment_trend !== '') {
    if (typeof q.sentiment_trend !== 'string' || !(TRENDS as readonly string[]).includes(q.sentiment_trend)) {
      throw invalid('sentiment_trend', `sentiment_trend must be one of ${TRENDS.join(', ')}`);
    }
    trend = q.sentiment_trend;
  }
  const filters: ProfileFilters = { churnGte: gte, churnLte: lte, trend, minMessages };
  const page = pageSql(projectId, filters, limit, offset, PROFILE_COLUMNS);
  const count = countSql(projectId, filters);
  // The tenant check runs beside the reads (one round trip of latency, not two); nothing is
  // returned unless it passes, so another tenant's project still answers 404 with no data.
  const [, rows, counted] = await Promise.all([
    requireProject(db, caller, projectId),
    db.raw(page.sql, page.bindings),
    db.raw(count.sql, count.bindings),
  ]);
  return { users: rows.rows.map(toProfile), total: Number(counted.rows[0].total) };
}

function requireUserId(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > 256) throw invalid('user_id', 'user_id must be 1 to 256 characters');
  return requireStorable(value, 'user_id');
}

export async function getProfile(db: Db, caller: Caller, q: { project_id?: unknown; user_id?: unknown }): Promise<ProfileView> {
  const projectId = requireId(q.project_id, 'project_id');
  const userId = requireUserId(q.user_id);
  const [, row] = await Promise.all([
    requireProject(db, caller, projectId),
    db('users').where({ project_id: projectId, user_id: userId }).whereNotNull('aggregates').first(PROFILE_COLUMNS),
  ]);
  if (!row) throw notFound('user');
  return toProfile(row);
}

export async function getTimeline(
  db: Db,
  caller: Caller,
  q: { project_id?: unknown; user_id?: unknown; limit?: unknown; offset?: unknown },
): Promise<{ user_id: string; timeline: TimelineEntryView[] }> {
  const projectId = requireId(q.project_id, 'project_id');
  const userId = requireUserId(q.user_id);
  const limit = optionalInt(q.limit, 'limit', 1, 1_000) ?? 100;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  const [, user] = await Promise.all([requireProject(db, caller, projectId), db('users').where({ project_id: projectId, user_id: userId }).first('id')]);
  if (!user) throw notFound('user');
  const rows = await db('messages')
    .where({ user_pk: user.id })
    .orderBy([{ column: 'written_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(limit)
    .offset(offset)
    .select('written_at', 'source_label', 'sentiment', 'topics', 'intentions');
  return {
    user_id: userId,
    timeline: rows.map((r) => ({
      timestamp: r.written_at,
      source_label: r.source_label,
      sentiment: r.sentiment,
      topics: r.topics,
      intentions: r.intentions,
    })),
  };
}
