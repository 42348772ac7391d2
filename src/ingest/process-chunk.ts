import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import type { Analyzer, MessageAnalysis } from '../analysis/analyze.js';
import { computeAggregates, meanEmbedding, windowOfRows, WINDOW_SIZE } from '../profiles/aggregates.js';
import {
  diffMemberships,
  loadSegmentsToMatch,
  lockSegmentsAsLoaded,
  SegmentsChanged,
  type LoadedSegment,
} from '../segments/memberships.js';
import type { ConditionVectors } from '../segments/condition-vectors.js';
import { isDatabaseDown } from '../errors.js';
import { keepBeating } from '../keep-beating.js';
import { realArrayLiteral } from '../db/real-array.js';
import { stampBatchProgress } from './batch-lifecycle.js';
import { readyLabels, type LabelMatcher } from '../labels/ready-labels.js';
import { ATTRIBUTE_ENTRY_BYTES_SQL, MAX_USER_ATTRIBUTE_BYTES, MAX_USER_ATTRIBUTES } from './attribute-bounds.js';

export interface ProcessChunkInput {
  sourceId: number;
  /** Item indexes [from, to) of the source. */
  from: number;
  to: number;
}

export interface ProcessChunkOutput {
  processed: number;
  failed: number;
  /** Items already folded by an earlier (crashed or twin) attempt. */
  skipped: number;
}

export interface ProcessChunkDeps {
  db: Db;
  analyzer: () => Promise<Analyzer>;
  conditionVectors: ConditionVectors;
  /** The tenant: its texts take turns with other tenants' on the embedder. */
  lane?: number;
  log: Logger;
  heartbeat?: () => void;
}

class AlreadyProcessed extends Error {}
/** The item was erased (its user's erasure) after this chunk read it. */
class ItemErased extends Error {}

/** Per chunk; each reload follows a real segment change, so this is only reached by constant churn. */
const MAX_SEGMENT_RELOADS = 20;

/**
 * Analyses a chunk of a batch with ONE embedding call, then folds each message into its user's
 * profile in its own transaction (user row locked by the upsert). Idempotent: a message is keyed by
 * (source_id, item_idx); an item already present is skipped and its transaction rolled back.
 */
export async function processChunk(deps: ProcessChunkDeps, input: ProcessChunkInput): Promise<ProcessChunkOutput> {
  const { db } = deps;
  const source = await db('sources').where({ id: input.sourceId }).first('id', 'project_id', 'label');
  if (!source) return { processed: 0, failed: 0, skipped: input.to - input.from };
  const items = await db('source_items')
    .where('source_id', input.sourceId)
    .where('idx', '>=', input.from)
    .where('idx', '<', input.to)
    .orderBy('idx')
    .select('idx', 'user_id', 'text', 'attributes', 'written_at', 'error', 'skipped');
  const done = new Set(
    await db('messages')
      .where('source_id', input.sourceId)
      .whereBetween('item_idx', [input.from, input.to - 1])
      .pluck('item_idx'),
  );
  // An item an erasure took (privacy/erase-user.ts) is neither analysed nor counted here.
  const pending = items.filter((i) => !done.has(i.idx) && !i.error && !i.skipped);
  const out: ProcessChunkOutput = { processed: 0, failed: items.filter((i) => i.error).length, skipped: done.size };
  if (pending.length === 0) return out;

  // The first chunks of a new worker may wait for its heads to be trained (a minute on the local
  // model): keep beating meanwhile, or the chunk would be taken for lost and started again.
  const analyzer = await keepBeating(deps.heartbeat, 5_000, deps.analyzer());
  const embedStart = Date.now();
  const analyses = await keepBeating(
    deps.heartbeat,
    5_000,
    analyzer.analyzeBatch(
      pending.map((i) => i.text),
      deps.lane,
    ),
  );
  // One line per embedding call: the benchmark counts them to prove batching.
  // embed_ms is the call's wait on the embedder plus its run: where a busy worker's time goes.
  deps.log.info('chunk analysed', {
    source_id: input.sourceId,
    texts: pending.length,
    embedding_calls: 1,
    embed_ms: Date.now() - embedStart,
  });
  const loadSegments = () =>
    loadSegmentsToMatch(db, source.project_id, deps.conditionVectors, { heartbeat: deps.heartbeat, lane: deps.lane });
  let current = await loadSegments();
  // The project's custom labels with a trained version, read once per chunk (docs/labels.md).
  const matchLabels = await readyLabels(db, source.project_id, analyzer.embedder.name);

  for (let k = 0, reloads = 0; k < pending.length; k++) {
    const item = pending[k];
    deps.heartbeat?.();
    try {
      await foldMessage(db, { source, item, analysis: analyses[k], ...current, matchLabels, log: deps.log });
      out.processed++;
    } catch (err) {
      if (err instanceof SegmentsChanged && reloads < MAX_SEGMENT_RELOADS) {
        // A segment was deployed, changed, undeployed or deleted meanwhile: fold this item again.
        reloads++;
        current = await loadSegments();
        k--;
      } else if (err instanceof AlreadyProcessed) {
        out.skipped++;
      } else if (err instanceof ItemErased) {
        deps.log.info('item erased while its chunk ran; not folded', { source_id: input.sourceId, idx: item.idx });
      } else if (isDatabaseDown(err)) {
        throw err; // Temporal retries the activity; folded items are skipped next time.
      } else if (err instanceof SegmentsChanged) {
        throw err; // Segments churning faster than we fold: retry the activity later, lose nothing.
      } else {
        deps.log.error('item failed', { source_id: input.sourceId, idx: item.idx, err });
        await db('source_items')
          .where({ source_id: input.sourceId, idx: item.idx })
          .update({ error: String((err as Error).message).slice(0, 500) });
        out.failed++;
      }
    }
  }
  if (out.processed > 0) await stampBatchProgress(db, input.sourceId);
  return out;
}

interface FoldArgs {
  source: { id: number; project_id: number; label: string };
  item: { idx: number; user_id: string; text: string; attributes: Record<string, unknown>; written_at: Date };
  analysis: MessageAnalysis;
  segments: LoadedSegment[];
  semanticEmbeddings: Map<string, number[]>;
  matchLabels: LabelMatcher;
  log: Logger;
}

async function foldMessage(db: Db, a: FoldArgs): Promise<void> {
  await db.transaction(async (trx) => {
    // The item's row lock, held to the commit: an erasure of its user (privacy/erase-user.ts)
    // blanks the item first, so it either finds the item erased here, or waits for this fold and
    // then deletes what it wrote. The user cannot come back from a chunk in flight or retried.
    const live = await trx('source_items')
      .where({ source_id: a.source.id, idx: a.item.idx })
      .whereNull('skipped')
      .forShare()
      .first('idx');
    if (!live) throw new ItemErased();
    // The upsert takes the user's row lock until commit: two batches touching the same user serialise here.
    // Attributes merge in submission order, so an older batch processed late cannot overwrite newer values.
    // A merge past the bounds leaves the stored attributes as they were; the message still folds.
    // A last defence only: the api weighs the same measure (ATTRIBUTE_ENTRY_BYTES_SQL, proved equal
    // to attributeWeight) against what is stored and every batch not yet folded, under the tenant's
    // batch lock (attribute-bounds.ts), so it refuses whatever could pass here. Only rows stored
    // before the api measured so can still reach this, and the warning below says when.
    const { rows } = await trx.raw(
      `INSERT INTO users (project_id, user_id, attributes, source_label, last_source_id)
       VALUES (?, ?, ?::jsonb, ?, ?)
       ON CONFLICT (project_id, user_id) DO UPDATE SET
         attributes = (
           SELECT CASE WHEN (SELECT count(*) <= ? AND coalesce(sum(${ATTRIBUTE_ENTRY_BYTES_SQL}), 0) <= ?
                             FROM jsonb_each(m)) THEN m ELSE users.attributes END
           FROM (SELECT CASE WHEN EXCLUDED.last_source_id >= users.last_source_id
                             THEN users.attributes || EXCLUDED.attributes
                             ELSE EXCLUDED.attributes || users.attributes END AS m) merged),
         source_label = CASE WHEN EXCLUDED.last_source_id >= users.last_source_id
                             THEN EXCLUDED.source_label ELSE users.source_label END,
         last_source_id = GREATEST(users.last_source_id, EXCLUDED.last_source_id),
         updated_at = now()
       RETURNING id, user_id, project_id, attributes`,
      [
        a.source.project_id,
        a.item.user_id,
        JSON.stringify(a.item.attributes ?? {}),
        a.source.label,
        a.source.id,
        MAX_USER_ATTRIBUTES,
        MAX_USER_ATTRIBUTE_BYTES,
      ],
    );
    const user = rows[0];
    if (!Object.keys(a.item.attributes ?? {}).every((k) => k in user.attributes)) {
      a.log.warn('attributes not merged: the user would pass its attribute bounds', {
        source_id: a.source.id,
        idx: a.item.idx,
      });
    }
    const inserted = await trx('messages')
      .insert({
        user_pk: user.id,
        source_id: a.source.id,
        item_idx: a.item.idx,
        written_at: a.item.written_at,
        source_label: a.source.label,
        text: a.item.text,
        sentiment: a.analysis.sentiment,
        topics: a.analysis.topics,
        intentions: a.analysis.intentions,
        churn_words: a.analysis.churnWords ?? [],
        labels: a.matchLabels(a.analysis.embedding, a.item.text),
        embedding: realArrayLiteral(a.analysis.embedding),
      })
      .onConflict(['source_id', 'item_idx'])
      .ignore()
      .returning('id');
    if (inserted.length === 0) throw new AlreadyProcessed();

    const window = await trx('messages')
      .where({ user_pk: user.id })
      .orderBy([
        { column: 'written_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(WINDOW_SIZE)
      .select('written_at', 'sentiment', 'topics', 'intentions', 'churn_words', 'labels', 'embedding');
    const aggregates = computeAggregates(windowOfRows(window));
    const profileEmbedding = meanEmbedding(window.map((m) => m.embedding as number[]));
    await lockSegmentsAsLoaded(trx, a.source.project_id, a.segments);
    await trx('users')
      .where({ id: user.id })
      .update({
        message_count: trx.raw('message_count + 1'),
        aggregates: JSON.stringify(aggregates),
        churn_risk_score: aggregates.churn_risk_score,
        sentiment_trend: aggregates.sentiment_trend,
        profile_embedding: profileEmbedding && realArrayLiteral(profileEmbedding),
      });
    await diffMemberships(
      trx,
      user,
      { aggregates, attributes: user.attributes, profileEmbedding, semanticEmbeddings: a.semanticEmbeddings },
      a.segments,
    );
  });
}
