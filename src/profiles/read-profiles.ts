import { requireReachable } from '../projects/projects.js';
import type { Db } from '../db/knex.js';
import { preparedQuery } from '../db/prepared.js';
import type { Caller } from '../auth/api-keys.js';
import { invalid, notFound } from '../errors.js';
import { optionalInt, optionalNumber, requireId, requireStorable } from '../validation.js';
import { SENTIMENT_TRENDS, type Aggregates } from './aggregates.js';
import { listSql, PROFILE_SORTS, type ProfileFilters, type ProfileSort } from './profile-counts.js';
import { requireStoredUserId } from '../ingest/validate-batch.js';

export interface ProfileView {
  user_id: string;
  source_label: string;
  attributes: Record<string, unknown>;
  aggregates: Aggregates & { message_count: number };
  created_at: Date;
  updated_at: Date;
}

/** Extension: a segment the user is a member of now (the single-profile read only). */
export interface SegmentMembershipView {
  pipeline_id: number;
  /** The segment's id (its slug), as the segments API names it. */
  segment_id: string;
  name: string;
  score: number;
  /** When the user entered the segment. */
  since: Date;
}

export interface ProfileWithSegmentsView extends ProfileView {
  segments: SegmentMembershipView[];
}

export interface TimelineEntryView {
  timestamp: Date;
  source_label: string;
  /** What the user wrote; null once the project's retention (or an erasure) removed the text. */
  text: string | null;
  sentiment: number;
  topics: string[];
  intentions: string[];
  /** The project's custom labels the message matched (docs/labels.md). */
  labels: string[];
}

const PROFILE_COLUMNS = [
  'user_id',
  'source_label',
  'attributes',
  'aggregates',
  'message_count',
  'created_at',
  'updated_at',
];

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

/** Filters and page of a profile listing; ranges and the trend's values are checked here. */
export interface ListProfilesInput {
  projectId: number;
  limit?: number;
  offset?: number;
  churnRiskGte?: number;
  churnRiskLte?: number;
  sentimentTrend?: string;
  minMessages?: number;
  /** Keyset paging (extension): the `next_after` of the previous page. */
  after?: string;
  /** Extension: `updated_at` (default) or `churn_risk` (highest churn_risk_score first). */
  sort?: string;
}

export interface ProfileRef {
  projectId: number;
  userId: string;
}

export interface TimelineInput extends ProfileRef {
  limit?: number;
  offset?: number;
}

export async function listProfiles(
  db: Db,
  caller: Caller,
  q: ListProfilesInput,
): Promise<{ users: ProfileView[]; total: number; next_after?: string }> {
  const projectId = requireId(q.projectId, 'project_id');
  requireReachable(caller, projectId);
  const limit = optionalInt(q.limit, 'limit', 1, 100) ?? 20;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  const sort = readSort(q.sort);
  const after = q.after === undefined || q.after === '' ? undefined : decodeCursor(q.after);
  if (after && sort !== 'updated_at') {
    throw invalid('after', 'after pages the updated_at order only; page sort=churn_risk with offset');
  }
  if (after && offset > 0) throw invalid('offset', 'offset cannot be combined with after (the cursor is the position)');
  const gte = optionalNumber(q.churnRiskGte, 'churn_risk_gte', 0, 1);
  const lte = optionalNumber(q.churnRiskLte, 'churn_risk_lte', 0, 1);
  const minMessages = optionalInt(q.minMessages, 'min_messages', 0, 1_000_000_000);
  let trend: string | undefined;
  if (q.sentimentTrend !== undefined && q.sentimentTrend !== '') {
    if (!(SENTIMENT_TRENDS as readonly string[]).includes(q.sentimentTrend)) {
      throw invalid('sentiment_trend', `sentiment_trend must be one of ${SENTIMENT_TRENDS.join(', ')}`);
    }
    trend = q.sentimentTrend;
  }
  const filters: ProfileFilters = { churnGte: gte, churnLte: lte, trend, minMessages };
  const list = listSql(caller.tenantId, { projectId, filters, limit, offset, sort, after, columns: PROFILE_COLUMNS });
  const rows = await preparedQuery<Record<string, any>>(db, list.sql, list.bindings);
  // No row at all: the project is missing or another tenant's (404 either way, nothing read).
  if (rows.length === 0) throw notFound('project');
  const users = rows[0].user_id === null ? [] : rows;
  // Only when the page is full, and in the order the cursor pages: the documented answer is
  // unchanged otherwise.
  const last = users.length === limit && sort === 'updated_at' ? users[users.length - 1] : undefined;
  return {
    users: users.map(toProfile),
    total: Number(rows[0].total),
    ...(last && { next_after: encodeCursor(Number(last.after_micros), last.user_id) }),
  };
}

function readSort(value: string | undefined): ProfileSort {
  if (value === undefined || value === '') return 'updated_at';
  if (!(PROFILE_SORTS as readonly string[]).includes(value)) {
    throw invalid('sort', `sort must be one of ${PROFILE_SORTS.join(', ')}`);
  }
  return value as ProfileSort;
}

/** The cursor of keyset paging: the last profile's exact `updated_at` and user id, opaque to clients. */
export function encodeCursor(updatedAtMicros: number, userId: string): string {
  return Buffer.from(JSON.stringify([updatedAtMicros, userId])).toString('base64url');
}

function decodeCursor(cursor: string): { updatedAtMicros: number; userId: string } {
  const bad = () => invalid('after', 'after must be the next_after of a previous page');
  if (cursor.length > 1_000 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(value[0]) ||
    typeof value[1] !== 'string' ||
    value[1] === '' ||
    value[1].length > 256
  )
    throw bad();
  return { updatedAtMicros: value[0], userId: requireStorable(value[1], 'after') };
}

export async function getProfile(db: Db, caller: Caller, q: ProfileRef): Promise<ProfileWithSegmentsView> {
  const projectId = requireId(q.projectId, 'project_id');
  requireReachable(caller, projectId);
  const userId = requireStoredUserId(q.userId, 'user_id');
  // One statement: the tenant check, the profile (one row, null profile columns for no profile)
  // and its current segments (memberships_by_user), in one snapshot.
  const cols = PROFILE_COLUMNS.map((c) => `u.${c}`).join(', ');
  const { rows } = await db.raw(
    `SELECT pr.id AS project_pk, ${cols},
            (SELECT coalesce(json_agg(json_build_object(
                      'pipeline_id', s.pipeline_id, 'segment_id', s.slug, 'name', s.name,
                      'score', m.score, 'since', m.changed_at)
                    ORDER BY s.pipeline_id, s.slug COLLATE "C"), '[]')
               FROM segment_memberships m JOIN segments s ON s.pk = m.segment_pk
              WHERE m.user_pk = u.id AND m.is_member) AS segments
       FROM projects pr
       LEFT JOIN users u ON u.project_id = pr.id AND u.user_id = ? AND u.aggregates IS NOT NULL
      WHERE pr.id = ? AND pr.tenant_id = ?`,
    [userId, projectId, caller.tenantId],
  );
  if (rows.length === 0) throw notFound('project');
  if (rows[0].user_id === null) throw notFound('user');
  return {
    ...toProfile(rows[0]),
    segments: (rows[0].segments as Record<string, any>[]).map((m) => ({
      pipeline_id: Number(m.pipeline_id),
      segment_id: m.segment_id,
      name: m.name,
      score: m.score,
      // JSON carries the timestamp as text.
      since: new Date(m.since),
    })),
  };
}

export async function getTimeline(
  db: Db,
  caller: Caller,
  q: TimelineInput,
): Promise<{ user_id: string; timeline: TimelineEntryView[] }> {
  const projectId = requireId(q.projectId, 'project_id');
  requireReachable(caller, projectId);
  const userId = requireStoredUserId(q.userId, 'user_id');
  const limit = optionalInt(q.limit, 'limit', 1, 1_000) ?? 100;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  // One statement: the tenant check, the user and the page of messages (null columns for none).
  const { rows } = await db.raw(
    `SELECT u.id AS user_pk, m.written_at, m.source_label, m.text, m.sentiment, m.topics, m.intentions, m.labels FROM projects pr
     LEFT JOIN users u ON u.project_id = pr.id AND u.user_id = ?
     LEFT JOIN LATERAL (
       SELECT id, written_at, source_label, text, sentiment, topics, intentions, labels FROM messages
       WHERE user_pk = u.id ORDER BY written_at DESC, id DESC LIMIT ? OFFSET ?
     ) m ON true
     WHERE pr.id = ? AND pr.tenant_id = ?
     ORDER BY m.written_at DESC, m.id DESC`,
    [userId, limit, offset, projectId, caller.tenantId],
  );
  if (rows.length === 0) throw notFound('project');
  if (rows[0].user_pk === null) throw notFound('user');
  const messages = rows[0].written_at === null ? [] : rows;
  return {
    user_id: userId,
    timeline: messages.map((r: Record<string, any>) => ({
      timestamp: r.written_at,
      source_label: r.source_label,
      text: r.text,
      sentiment: r.sentiment,
      topics: r.topics,
      intentions: r.intentions,
      labels: r.labels ?? [],
    })),
  };
}
