import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { noCounts, recordErasure, type ErasureCounts } from './erasures.js';
import { forgetDerivedFromSwept } from './retention-derived.js';

/** Messages erased per transaction: each holds its rows' locks for milliseconds. */
export const RETENTION_BATCH = 500;
/** Transactions per project per run: a long backlog is worked off over several runs. */
const MAX_BATCHES_PER_RUN = 200;

/**
 * The retention sweep (worker role): in each project with `message_retention_days`, messages
 * written before that many days ago lose their text, their vector and their churn words (words of
 * the text), and keep their analysis (timestamp, sentiment, topics, intentions): the profile, its
 * trend and the segments were computed from the analysis and keep working on it. What the profile
 * derived from the erased text goes too: its vector and churn words are recomputed from the
 * messages that keep theirs (retention-derived.ts). The batch items that carried the same text
 * lose it too (an item that failed analysis keeps it until it is as old).
 *
 * Bounded batches of RETENTION_BATCH messages, each its own transaction, taking only rows nobody
 * holds (SKIP LOCKED), the messages and their users: it never waits for ingest. A fold of a user
 * whose messages a batch is erasing waits for that transaction (milliseconds), so it computes the
 * profile from what the sweep left. A message of a user being folded is skipped, and taken at the
 * next run. Each run that erased something is recorded in the audit trail (erasures.ts, kind
 * `retention`), counts only. Several workers may sweep at once: SKIP LOCKED gives each its own rows.
 */
export async function sweepRetention(db: Db, log: Logger): Promise<{ projects: number; messages: number }> {
  const projects: { id: number; days: number }[] = await db('projects')
    .whereNotNull('message_retention_days')
    .orderBy('id')
    .select('id', 'message_retention_days as days');
  let total = 0;
  let swept = 0;
  for (const p of projects) {
    const counts = await sweepProject(db, Number(p.id), p.days);
    if (counts.messages + counts.batch_items === 0) continue;
    swept++;
    total += counts.messages;
    await db.transaction((trx) => recordErasure(trx, { projectId: Number(p.id), kind: 'retention', counts }));
    log.info('retention sweep erased message texts', { project_id: p.id, ...counts });
  }
  return { projects: swept, messages: total };
}

async function sweepProject(db: Db, projectId: number, days: number): Promise<ErasureCounts> {
  const counts: ErasureCounts = noCounts();
  for (let n = 0; n < MAX_BATCHES_PER_RUN; n++) {
    const erased = await db.transaction(async (trx) => {
      // A message and its batch item go as one: both locked here or neither (SKIP LOCKED on the
      // join skips the pair), so the sweep never waits for a fold holding the item (FOR SHARE) or an
      // erasure blanking it, and never leaves a swept message whose item keeps the text: a skipped
      // pair is taken whole at a later run. Every message has its item (items are blanked, never
      // deleted, except with their project).
      const { rows } = await trx.raw(
        `WITH doomed AS (
           SELECT m.id, si.source_id, si.idx FROM messages m
             JOIN users u ON u.id = m.user_pk
             JOIN source_items si ON si.source_id = m.source_id AND si.idx = m.item_idx
            WHERE u.project_id = ? AND m.text IS NOT NULL AND m.written_at < now() - make_interval(days => ?)
            ORDER BY m.written_at
            LIMIT ? FOR UPDATE OF m, si SKIP LOCKED FOR NO KEY UPDATE OF u SKIP LOCKED),
         items AS (
           UPDATE source_items si SET text = NULL FROM doomed
            WHERE si.source_id = doomed.source_id AND si.idx = doomed.idx AND si.text IS NOT NULL
           RETURNING 1)
         UPDATE messages m SET text = NULL, embedding = NULL, churn_words = NULL, text_erased_at = now()
           FROM doomed WHERE m.id = doomed.id
         RETURNING m.id, m.user_pk, (SELECT count(*)::int FROM items) AS items`,
        [projectId, days, RETENTION_BATCH],
      );
      if (rows.length === 0) return 0;
      counts.batch_items += rows[0].items;
      await forgetDerivedFromSwept(trx, rows);
      return rows.length;
    });
    counts.messages += erased;
    if (erased < RETENTION_BATCH) break;
  }
  // Items that failed analysis have no message: theirs is the only copy of the text.
  const failed = await db.raw(
    `WITH f AS (
       SELECT si.source_id, si.idx FROM source_items si JOIN sources s ON s.id = si.source_id
        WHERE si.error IS NOT NULL AND si.text IS NOT NULL AND si.written_at < now() - make_interval(days => ?)
          AND s.project_id = ? AND s.completed_at IS NOT NULL
          FOR UPDATE OF si SKIP LOCKED)
     UPDATE source_items si SET text = NULL FROM f WHERE si.source_id = f.source_id AND si.idx = f.idx`,
    [days, projectId],
  );
  counts.batch_items += failed.rowCount ?? 0;
  return counts;
}

/** Runs the sweep every `everyMs` in the worker role; answers a stop function. */
export function startRetentionSweep(deps: { db: Db; log: Logger; everyMs: number }): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return; // a long backlog: the next tick waits for this run
    running = true;
    sweepRetention(deps.db, deps.log)
      .catch((err: unknown) =>
        deps.log.warn('retention sweep failed; next run retries', { err: (err as Error).message }),
      )
      .finally(() => (running = false));
  }, deps.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
