import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireId } from '../validation.js';
import { requireProject } from '../projects/projects.js';
import { requireUserId } from '../ingest/validate-batch.js';

/** Messages read per query while the document streams: the api holds one page at a time. */
export const EXPORT_PAGE = 500;

/**
 * Everything stored about one user of a project (GDPR articles 15 and 20), as ONE JSON document
 * written piece by piece: the profile and attributes, current and past memberships, the events
 * about the user, every analysed message with its text and analysis, and the items of batches
 * not analysed yet. Messages are read in pages of EXPORT_PAGE by keyset, so a user with 100,000
 * messages costs the api one page of memory, not the whole history.
 *
 * Not included: the message vectors (512 numbers each, derived from the text, meaningless outside
 * this model) and the profile vector; delivery attempts (they are the receiver's answers).
 *
 * The checks (the project is the caller's, the user is stored) run before the first piece, so a
 * refusal is an ordinary error answer; the pieces read the database as they are pulled.
 */
export async function exportProfile(db: Db, caller: Caller, ref: { projectId: number; userId: string }) {
  const projectId = requireId(ref.projectId, 'project_id');
  const userId = requireUserId(ref.userId, 'user_id');
  await requireProject(db, caller, projectId);
  const user = await db('users')
    .where({ project_id: projectId, user_id: userId })
    .first('id', 'user_id', 'source_label', 'attributes', 'aggregates', 'message_count', 'created_at', 'updated_at');
  const pendingItems = await pendingItemsOf(db, projectId, userId);
  if (!user && pendingItems.length === 0) throw notFound('user');
  return documentPieces(db, { projectId, userId, user, pendingItems });
}

async function pendingItemsOf(db: Db, projectId: number, userId: string) {
  // Items of the user not (yet) folded into a message: stored, waiting for or failed in analysis.
  const { rows } = await db.raw(
    `SELECT si.source_id, si.idx, si.text, si.attributes, si.written_at, si.error, s.created_at AS received_at
       FROM source_items si JOIN sources s ON s.id = si.source_id
      WHERE si.user_id = ? AND s.project_id = ? AND si.skipped IS NULL
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = si.source_id AND m.item_idx = si.idx)
      ORDER BY si.source_id, si.idx
      LIMIT 10000`,
    [userId, projectId],
  );
  return rows.map((r: Record<string, any>) => ({
    source_id: Number(r.source_id),
    index: r.idx,
    timestamp: r.written_at,
    text: r.text,
    attributes: r.attributes,
    state: r.error ? 'failed' : 'waiting',
    received_at: r.received_at,
  }));
}

async function* documentPieces(
  db: Db,
  d: { projectId: number; userId: string; user: Record<string, any> | undefined; pendingItems: unknown[] },
): AsyncGenerator<string> {
  const { user } = d;
  const head = {
    user_id: d.userId,
    project_id: d.projectId,
    exported_at: new Date(),
    profile: user
      ? {
          user_id: user.user_id,
          source_label: user.source_label,
          aggregates: user.aggregates ? { ...user.aggregates, message_count: user.message_count } : null,
          created_at: user.created_at,
          updated_at: user.updated_at,
        }
      : null,
    attributes: user?.attributes ?? {},
  };
  // The head's fields, then the lists, each opened and closed around its pieces.
  yield JSON.stringify(head).slice(0, -1);
  yield ',"memberships":' + JSON.stringify(user ? await membershipsOf(db, user.id) : []);
  yield ',"events":[';
  if (user) yield* eventsOf(db, user.id);
  yield '],"pending_items":' + JSON.stringify(d.pendingItems);
  yield ',"messages":[';
  if (user) yield* messagesOf(db, user.id);
  yield ']}';
}

/** The user's messages, oldest first, as comma-separated JSON objects, a page per query. */
async function* messagesOf(db: Db, userPk: number): AsyncGenerator<string> {
  let after: { at: Date; id: number } | undefined;
  let first = true;
  for (;;) {
    const page: Record<string, any>[] = await db('messages')
      .where({ user_pk: userPk })
      .modify((q) => {
        if (after) q.whereRaw('(written_at, id) > (?, ?)', [after.at, after.id]);
      })
      .orderBy([
        { column: 'written_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(EXPORT_PAGE)
      .select(
        'id',
        'written_at',
        'source_id',
        'source_label',
        'text',
        'text_erased_at',
        'sentiment',
        'topics',
        'intentions',
        'churn_words',
        'created_at',
      );
    if (page.length === 0) break;
    const pieces = page.map((m) =>
      JSON.stringify({
        timestamp: m.written_at,
        source_id: Number(m.source_id),
        source_label: m.source_label,
        text: m.text,
        ...(m.text_erased_at && { text_erased_at: m.text_erased_at }),
        sentiment: m.sentiment,
        topics: m.topics,
        intentions: m.intentions,
        churn_words: m.churn_words ?? [],
        analysed_at: m.created_at,
      }),
    );
    yield (first ? '' : ',') + pieces.join(',');
    first = false;
    const last = page[page.length - 1];
    after = { at: last.written_at, id: Number(last.id) };
    if (page.length < EXPORT_PAGE) break;
  }
}

async function membershipsOf(db: Db, userPk: number) {
  const rows = await db('segment_memberships as m')
    .join('segments as s', 's.pk', 'm.segment_pk')
    .where({ 'm.user_pk': userPk })
    .orderBy([{ column: 's.pipeline_id' }, { column: 's.slug' }])
    .select('s.pipeline_id', 's.slug', 's.name', 'm.is_member', 'm.score', 'm.seq', 'm.changed_at');
  return rows.map((r) => ({
    pipeline_id: Number(r.pipeline_id),
    segment_id: r.slug,
    name: r.name,
    is_member: r.is_member,
    score: r.score,
    /** How many times the user entered or left the segment (the events list has each change). */
    changes: r.seq,
    changed_at: r.changed_at,
  }));
}

/** The events about the user, oldest first, as comma-separated JSON objects, a page per query. */
async function* eventsOf(db: Db, userPk: number): AsyncGenerator<string> {
  for (let after = 0, first = true; ; first = false) {
    const page = await db('events')
      .where({ user_pk: userPk })
      .where('id', '>', after)
      .orderBy('id')
      .limit(EXPORT_PAGE)
      .select(
        'id',
        'event_type',
        'reason',
        'pipeline_id',
        'segment_slug',
        'segment_name',
        'score',
        'seq',
        'created_at',
      );
    if (page.length === 0) return;
    const pieces = page.map((r) =>
      JSON.stringify({
        id: Number(r.id),
        event_type: r.event_type,
        ...(r.reason && { reason: r.reason }),
        pipeline_id: Number(r.pipeline_id),
        segment_id: r.segment_slug,
        segment_name: r.segment_name,
        score: r.score,
        seq: r.seq,
        created_at: r.created_at,
      }),
    );
    yield (first ? '' : ',') + pieces.join(',');
    after = Number(page[page.length - 1].id);
    if (page.length < EXPORT_PAGE) return;
  }
}
