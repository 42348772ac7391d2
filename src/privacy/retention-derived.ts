import type { Knex } from 'knex';
import {
  computeAggregates,
  meanEmbedding,
  windowOfRows,
  WINDOW_SIZE,
  type MessageRow,
} from '../profiles/aggregates.js';

/** A message the retention sweep just erased: its text, vector and churn words are gone. */
export interface SweptMessage {
  id: number | string;
  user_pk: number | string;
}

/**
 * What a profile still held of messages the retention sweep erased (retention.ts): the profile
 * vector is the mean of the window's message vectors (process-chunk.ts), so a one-message user's
 * is exactly the erased vector; the profile's churn words are the window's words (aggregates.ts),
 * verbatim text. For each user with a swept message among their WINDOW_SIZE most recent, both are
 * recomputed from what the window keeps, as the user's next fold would: the vector from the
 * messages that still have one (null when none does), the churn words from those that still have
 * theirs. The other aggregates come from the analysis, which the sweep keeps: they do not change,
 * nor does `updated_at`. Segment memberships stay until the user's next message or the segment's
 * next evaluation, which read the new vector.
 *
 * Runs in the sweep's transaction, which holds these users' rows (SKIP LOCKED) so that no fold
 * computes a profile from the vectors being erased. Answers how many profiles it rewrote.
 */
export async function forgetDerivedFromSwept(trx: Knex.Transaction, swept: readonly SweptMessage[]): Promise<number> {
  if (swept.length === 0) return 0;
  const sweptIds = new Set(swept.map((m) => String(m.id)));
  const userPks = [...new Set(swept.map((m) => String(m.user_pk)))];
  const { rows } = await trx.raw(
    `SELECT u.id AS user_pk, w.id, w.written_at, w.sentiment, w.topics, w.intentions, w.churn_words, w.embedding
       FROM unnest(?::bigint[]) AS u(id)
       CROSS JOIN LATERAL (
         SELECT id, written_at, sentiment, topics, intentions, churn_words, embedding FROM messages
          WHERE user_pk = u.id ORDER BY written_at DESC, id DESC LIMIT ?) w`,
    [userPks, WINDOW_SIZE],
  );
  const windows = new Map<string, Record<string, any>[]>();
  for (const r of rows) windows.set(String(r.user_pk), [...(windows.get(String(r.user_pk)) ?? []), r]);
  let rewritten = 0;
  for (const [userPk, window] of windows) {
    if (!window.some((m) => sweptIds.has(String(m.id)))) continue;
    const vector = meanEmbedding(window.map((m) => m.embedding));
    const { churn_words: words } = computeAggregates(windowOfRows(window as MessageRow[])).churn_risk_factors;
    await trx.raw(
      `UPDATE users SET profile_embedding = ?::real[],
              aggregates = jsonb_set(aggregates, '{churn_risk_factors,churn_words}', ?::jsonb)
        WHERE id = ?`,
      [vector, JSON.stringify(words), userPk],
    );
    rewritten++;
  }
  return rewritten;
}
