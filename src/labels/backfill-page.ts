import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { wordFeatures } from '../analysis/word-features.js';
import { computeAggregates, windowOfRows, WINDOW_SIZE } from '../profiles/aggregates.js';
import type { ConditionVectors } from '../segments/condition-vectors.js';
import {
  diffMemberships,
  loadSegmentsToMatch,
  lockSegmentsAsLoaded,
  SegmentsChanged,
  type LoadedSegment,
} from '../segments/memberships.js';
import { wakeRelay } from '../outbox/outbox.js';
import { labelScorer, type LabelModel } from './label-model.js';

export interface BackfillLabelPageInput {
  labelId: number;
  version: number;
  afterUserPk: number;
  pageSize: number;
}

export interface BackfillLabelPageOutput {
  /** Null when the last page was done, or a newer version (or the label's deletion) took over. */
  nextAfterUserPk: number | null;
  users: number;
  /** Messages whose match with this label changed. */
  changed: number;
}

/** Messages re-scored per transaction: a user with thousands of messages holds its row lock only briefly each time. */
const MESSAGES_PER_STEP = 500;
const MAX_SEGMENT_RELOADS = 20;

/**
 * Scores one page of a project's users' stored messages with a label version that just became
 * ready (the backfill workflow's activity), so that profiles and segments reflect history, not only
 * what arrives from now on. Per user: its messages that still have their text and vector get the
 * label's name added or taken away (an erased text keeps the reading it had), in steps of
 * MESSAGES_PER_STEP; then the profile's aggregates are recomputed and its memberships diffed, under
 * the user's row lock as a fold does, so a user who now matches a deployed segment gets
 * `user_added`. Scoring needs no embedding (the vectors are stored), so a page costs the database
 * only; each user is its own short transactions, so ingest never waits long behind it. Idempotent:
 * a page run again finds nothing to change and emits nothing.
 */
export async function backfillLabelPage(
  deps: { db: Db; conditionVectors: ConditionVectors; heartbeat?: () => void; lane?: number; log: Logger },
  input: BackfillLabelPageInput,
): Promise<BackfillLabelPageOutput> {
  const { db } = deps;
  const stop = { nextAfterUserPk: null, users: 0, changed: 0 };
  const label = await db('labels').where({ id: input.labelId }).first('name', 'project_id', 'model', 'model_version');
  if (!label || label.model_version !== input.version) return stop;
  const model = label.model as LabelModel;
  const score = labelScorer(model);
  const name: string = label.name;
  const ids: number[] = await db('users')
    .where({ project_id: label.project_id })
    .where('id', '>', input.afterUserPk)
    .orderBy('id')
    .limit(input.pageSize)
    .pluck('id');
  const loadSegments = () =>
    loadSegmentsToMatch(db, label.project_id, deps.conditionVectors, { heartbeat: deps.heartbeat, lane: deps.lane });
  let current = await loadSegments();
  let changed = 0;
  for (const id of ids) {
    deps.heartbeat?.();
    // The user's messages, step by step by id; each step re-checks that this version still scores,
    // and beats (a user with many messages takes many steps).
    for (let after = 0; ;) {
      deps.heartbeat?.();
      const step = await db.transaction(async (trx) => {
        await trx('users').where({ id }).forNoKeyUpdate().first('id');
        const now = await trx('labels').where({ id: input.labelId }).forShare().first('model_version');
        if (!now || now.model_version !== input.version) return null;
        const rows: { id: string; text: string; embedding: number[]; labels: string[] }[] = await trx('messages')
          .where({ user_pk: id })
          .where('id', '>', after)
          .whereNotNull('text')
          .whereNotNull('embedding')
          .orderBy('id')
          .limit(MESSAGES_PER_STEP)
          .select('id', 'text', 'embedding', 'labels');
        const add: string[] = [];
        const remove: string[] = [];
        for (const m of rows) {
          const matches = score(m.embedding, wordFeatures(m.text)) >= model.threshold;
          const has = (m.labels ?? []).includes(name);
          if (matches && !has) add.push(m.id);
          if (!matches && has) remove.push(m.id);
        }
        if (add.length > 0) {
          await trx.raw(
            `UPDATE messages SET labels = (SELECT array_agg(l ORDER BY l) FROM unnest(array_append(labels, ?)) l)
              WHERE id = ANY(?::bigint[])`,
            [name, add],
          );
        }
        if (remove.length > 0) {
          await trx.raw(`UPDATE messages SET labels = array_remove(labels, ?) WHERE id = ANY(?::bigint[])`, [
            name,
            remove,
          ]);
        }
        changed += add.length + remove.length;
        return rows.length < MESSAGES_PER_STEP ? 'done' : Number(rows[rows.length - 1].id);
      });
      if (step === null) return stop;
      if (step === 'done') break;
      after = step;
    }
    // The profile and its memberships, as a fold leaves them.
    for (let reloads = 0; ; reloads++) {
      try {
        await refreshProfile(db, id, label.project_id, current);
        break;
      } catch (err) {
        if (!(err instanceof SegmentsChanged) || reloads >= MAX_SEGMENT_RELOADS) throw err;
        current = await loadSegments();
      }
    }
  }
  const last = ids.length < input.pageSize;
  // Counted once per page: a page retried after this commit finds the cursor already past it.
  await db('labels')
    .where({ id: input.labelId, backfill_version: input.version, backfill_after: input.afterUserPk })
    .update({
      backfill_after: ids.length > 0 ? ids[ids.length - 1] : input.afterUserPk,
      backfill_users: db.raw('backfill_users + ?', [ids.length]),
      ...(last ? { backfill_done_at: db.fn.now() } : {}),
    });
  if (last) await wakeRelay(db);
  return { nextAfterUserPk: last ? null : ids[ids.length - 1], users: ids.length, changed };
}

/** A user's aggregates recomputed from its window and its memberships diffed, under its row lock. */
async function refreshProfile(
  db: Db,
  userPk: number,
  projectId: number,
  current: { segments: LoadedSegment[]; semanticEmbeddings: Map<string, number[]> },
): Promise<void> {
  await db.transaction(async (trx) => {
    const user = await trx('users')
      .where({ id: userPk })
      .forNoKeyUpdate()
      .first('id', 'user_id', 'project_id', 'attributes', 'profile_embedding');
    if (!user) return; // erased meanwhile
    const window = await trx('messages')
      .where({ user_pk: userPk })
      .orderBy([
        { column: 'written_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(WINDOW_SIZE)
      .select('written_at', 'sentiment', 'topics', 'intentions', 'churn_words', 'labels');
    if (window.length === 0) return;
    const aggregates = computeAggregates(windowOfRows(window));
    await lockSegmentsAsLoaded(trx, projectId, current.segments);
    await trx('users')
      .where({ id: userPk })
      .update({ aggregates: JSON.stringify(aggregates) });
    await diffMemberships(
      trx,
      user,
      {
        aggregates,
        attributes: user.attributes,
        profileEmbedding: user.profile_embedding,
        semanticEmbeddings: current.semanticEmbeddings,
      },
      current.segments,
    );
  });
}
