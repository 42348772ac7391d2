import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { notFound } from '../errors.js';
import { requireId } from '../validation.js';
import { requireProject } from '../projects/projects.js';
import { requireStoredUserId } from '../ingest/validate-batch.js';
import { eventsOf, hasPendingItems, messagesOf, pendingItemsOf } from './export-pages.js';

/**
 * Everything stored about one user of a project (GDPR articles 15 and 20), as ONE JSON document
 * written piece by piece: the profile and attributes, current and past memberships, the events
 * about the user, the items of batches not analysed yet, and every analysed message with its text
 * and analysis. Events, items and messages are read in pages of about a megabyte by keyset
 * (export-pages.ts), each page only when the client has taken the last one, so an open export
 * costs the api one page of memory, not the user's history.
 *
 * Not included: the message vectors (512 numbers each, derived from the text, meaningless outside
 * this model) and the profile vector; delivery attempts (they are the receiver's answers).
 *
 * The checks (the project is the caller's, the user is stored) run before the first piece, so a
 * refusal is an ordinary error answer, and a HEAD is answered from them alone; the pieces read the
 * database as they are pulled.
 */
export async function exportProfile(db: Db, caller: Caller, ref: { projectId: number; userId: string }) {
  const projectId = requireId(ref.projectId, 'project_id');
  const userId = requireStoredUserId(ref.userId, 'user_id');
  await requireProject(db, caller, projectId);
  const user = await db('users')
    .where({ project_id: projectId, user_id: userId })
    .first('id', 'user_id', 'source_label', 'attributes', 'aggregates', 'message_count', 'created_at', 'updated_at');
  if (!user && !(await hasPendingItems(db, projectId, userId))) throw notFound('user');
  return documentPieces(db, { projectId, userId, user });
}

async function* documentPieces(
  db: Db,
  d: { projectId: number; userId: string; user: Record<string, any> | undefined },
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
  // One row per segment the user was ever in: bounded by the project's segments, one query.
  yield ',"memberships":' + JSON.stringify(user ? await membershipsOf(db, user.id) : []);
  yield ',"events":[';
  if (user) yield* eventsOf(db, user.id);
  yield '],"pending_items":[';
  yield* pendingItemsOf(db, d.projectId, d.userId);
  yield '],"messages":[';
  if (user) yield* messagesOf(db, user.id);
  yield ']}';
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
