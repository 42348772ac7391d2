import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';

/**
 * Bytes one page of the export may reach, texts weighed as the JSON they become (a control
 * character is six characters there): the page ends after the row that reaches it (so
 * a page always has a row). With texts of at most 10,000 characters and 50 attributes, a page is
 * at most this plus one row: the api holds about a megabyte of rows per open export, whatever
 * the user's history.
 */
export const EXPORT_PAGE_BYTES = 1024 * 1024;
/** Rows one page holds however small they are: each page is one keyset query. */
export const EXPORT_PAGE_ROWS = 500;
/** What a row weighs beyond its text and attributes: ids, dates, scores, labels, a few words. */
const ROW_BYTES = 512;

type Row = Record<string, any>;

/**
 * One page: the first EXPORT_PAGE_ROWS rows of `rows` (an ordered query selecting a `weight`
 * column), cut in the database after the row that brings the page to EXPORT_PAGE_BYTES, so the
 * api never receives more than a page. `order` is `rows`' ORDER BY, by output column names.
 */
async function readPage(db: Db, rows: string, bindings: Knex.RawBinding[], order: string): Promise<Row[]> {
  const { rows: page } = await db.raw(
    `SELECT * FROM (
       SELECT p.*, sum(p.weight) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) - p.weight AS weight_before
         FROM (${rows} LIMIT ${EXPORT_PAGE_ROWS}) p
     ) w
     WHERE w.weight_before < ?
     ORDER BY ${order}`,
    [...bindings, EXPORT_PAGE_BYTES],
  );
  return page;
}

/**
 * A list read page by page: `read(after)` gives a page's JSON objects (comma-separated) and the
 * key to read after, or nothing past the end. The next page is read only when the writer asks for
 * it (it asks when the client has taken the last one), and only the piece is kept meanwhile,
 * never the rows it was made of.
 */
async function* pages<K>(read: (after: K | undefined) => Promise<{ piece: string; last: K } | undefined>) {
  let after: K | undefined;
  for (let first = true; ; first = false) {
    const page = await read(after);
    if (!page) return;
    yield (first ? '' : ',') + page.piece;
    after = page.last;
  }
}

/** The user's messages, oldest first, as comma-separated JSON objects. */
export function messagesOf(db: Db, userPk: number): AsyncGenerator<string> {
  // The timestamp's key is its text: a Date holds milliseconds, and a row written with microseconds
  // compared after its own millisecond would be read again, page after page.
  return pages<{ at: string; id: number }>(async (after) => {
    const page = await readPage(
      db,
      `SELECT id, written_at, source_id, source_label, text, text_erased_at, sentiment, topics, intentions,
              churn_words, labels, created_at, written_at::text AS written_key,
              octet_length(to_jsonb(coalesce(text, ''))::text) + ${ROW_BYTES} AS weight
         FROM messages
        WHERE user_pk = ? ${after ? 'AND (written_at, id) > (?::timestamptz, ?)' : ''}
        ORDER BY written_at, id`,
      after ? [userPk, after.at, after.id] : [userPk],
      'written_at, id',
    );
    if (page.length === 0) return undefined;
    const last = page[page.length - 1];
    return {
      piece: page.map(message).join(','),
      last: { at: last.written_key, id: Number(last.id) },
    };
  });
}

const message = (m: Row) =>
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
    labels: m.labels ?? [],
    analysed_at: m.created_at,
  });

/**
 * The user's items not (yet) folded into a message (stored, waiting for or failed in analysis),
 * by batch and index, as comma-separated JSON objects: every one of them, however many.
 */
export function pendingItemsOf(db: Db, projectId: number, userId: string): AsyncGenerator<string> {
  return pages<{ source: number; idx: number }>(async (after) => {
    const page = await readPage(
      db,
      `SELECT si.source_id, si.idx, si.text, si.attributes, si.written_at, si.error, s.created_at AS received_at,
              octet_length(to_jsonb(coalesce(si.text, ''))::text) + octet_length(si.attributes::text) + ${ROW_BYTES} AS weight
         FROM ${PENDING} ${after ? 'AND (si.source_id, si.idx) > (?, ?)' : ''}
        ORDER BY si.source_id, si.idx`,
      after ? [userId, projectId, after.source, after.idx] : [userId, projectId],
      'source_id, idx',
    );
    if (page.length === 0) return undefined;
    const last = page[page.length - 1];
    return { piece: page.map(pendingItem).join(','), last: { source: Number(last.source_id), idx: last.idx } };
  });
}

/** The FROM and WHERE of a user's pending items (bindings: user id, project id). */
const PENDING = `source_items si JOIN sources s ON s.id = si.source_id
        WHERE si.user_id = ? AND s.project_id = ? AND si.skipped IS NULL
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.source_id = si.source_id AND m.item_idx = si.idx)`;

/** Whether the user has an item not folded into a message (a user known only by those exists). */
export async function hasPendingItems(db: Db, projectId: number, userId: string): Promise<boolean> {
  const { rows } = await db.raw(`SELECT 1 FROM ${PENDING} LIMIT 1`, [userId, projectId]);
  return rows.length > 0;
}

const pendingItem = (r: Row) =>
  JSON.stringify({
    source_id: Number(r.source_id),
    index: r.idx,
    timestamp: r.written_at,
    text: r.text,
    attributes: r.attributes,
    state: r.error ? 'failed' : 'waiting',
    received_at: r.received_at,
  });

/** The events about the user, oldest first, as comma-separated JSON objects. */
export function eventsOf(db: Db, userPk: number): AsyncGenerator<string> {
  return pages<number>(async (after) => {
    const page = await readPage(
      db,
      `SELECT id, event_type, reason, pipeline_id, segment_slug, segment_name, score, seq, created_at,
              octet_length(segment_name) + octet_length(segment_slug) + ${ROW_BYTES} AS weight
         FROM events
        WHERE user_pk = ? AND id > ?
        ORDER BY id`,
      [userPk, after ?? 0],
      'id',
    );
    if (page.length === 0) return undefined;
    return { piece: page.map(event).join(','), last: Number(page[page.length - 1].id) };
  });
}

const event = (r: Row) =>
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
  });
