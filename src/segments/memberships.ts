import type { Knex } from 'knex';
import { queueSubscribedDeliveries, wakeRelay } from '../outbox/outbox.js';
import { evaluateRule, type MatchContext, type Rule } from './rules.js';
import type { ConditionVectors } from './condition-vectors.js';
import { keepBeating } from '../keep-beating.js';

export interface LoadedSegment {
  pk: number;
  version: number;
  pipeline_id: number;
  slug: string;
  name: string;
  rule: Rule;
}

export interface MemberUser {
  id: number;
  user_id: string;
  project_id: number;
}

export async function loadDeployedSegments(db: Knex, projectId: number): Promise<LoadedSegment[]> {
  return db('segments')
    .where({ project_id: projectId, status: 'deployed' })
    .orderBy('pk')
    .select('pk', 'version', 'pipeline_id', 'slug', 'name', 'rule');
}

/** What a user is matched against: the project's deployed segments and their semantic conditions' vectors. */
export interface SegmentsToMatch {
  segments: LoadedSegment[];
  semanticEmbeddings: Map<string, number[]>;
}

/**
 * Loads what a fold or a backfill matches users against. A semantic condition stored without a
 * vector (an older segment, a new embedder) is embedded here once: keep beating meanwhile.
 */
export async function loadSegmentsToMatch(
  db: Knex,
  projectId: number,
  conditionVectors: ConditionVectors,
  opts: { heartbeat?: () => void; lane?: number } = {},
): Promise<SegmentsToMatch> {
  const segments = await loadDeployedSegments(db, projectId);
  const semanticEmbeddings = await keepBeating(
    opts.heartbeat,
    5_000,
    conditionVectors.forSegments(db, segments, opts.lane),
  );
  return { segments, semanticEmbeddings };
}

/** The deployed segments changed since they were loaded: reload them and fold again. */
export class SegmentsChanged extends Error {
  constructor() {
    super('the deployed segments changed while the message was being folded');
  }
}

/**
 * Holds the segments the caller is about to diff against (FOR SHARE) until its transaction ends,
 * and checks they are still exactly the deployed ones at the versions it loaded. Undeploy, delete
 * and rule changes take these rows' write lock, so they wait for the fold, or the fold sees them:
 * no membership is written for a segment that is gone or undeployed (and no event after an
 * undeploy), and no deployed segment is skipped.
 */
export async function lockSegmentsAsLoaded(
  trx: Knex.Transaction,
  projectId: number,
  loaded: LoadedSegment[],
): Promise<void> {
  const current: { pk: number; version: number }[] = await trx('segments')
    .where({ project_id: projectId, status: 'deployed' })
    .orderBy('pk')
    .forShare()
    .select('pk', 'version');
  const same =
    current.length === loaded.length &&
    current.every((c, i) => c.pk === loaded[i].pk && c.version === loaded[i].version);
  if (!same) throw new SegmentsChanged();
}

/**
 * Diffs the user's old and new membership of each segment inside the caller's transaction:
 * updates membership rows, and for each change inserts one event plus one outbox row per
 * webhook of the segment's pipeline that takes it (src/outbox/subscription.ts). Nothing is sent here;
 * the relay is woken by NOTIFY, which PostgreSQL delivers only if the transaction commits.
 */
export async function diffMemberships(
  trx: Knex.Transaction,
  user: MemberUser,
  ctx: MatchContext,
  segments: LoadedSegment[],
): Promise<number> {
  if (segments.length === 0) return 0;
  const previous = await trx('segment_memberships')
    .where({ user_pk: user.id })
    .whereIn(
      'segment_pk',
      segments.map((s) => s.pk),
    )
    .select('segment_pk', 'is_member', 'score', 'seq');
  const bySegment = new Map(previous.map((r) => [r.segment_pk as number, r]));
  let changes = 0;
  for (const segment of segments) {
    const { matched, score } = evaluateRule(segment.rule, ctx);
    const prev = bySegment.get(segment.pk);
    const wasMember = prev?.is_member === true;
    if (matched === wasMember) {
      if (matched && prev && prev.score !== score) {
        await trx('segment_memberships').where({ segment_pk: segment.pk, user_pk: user.id }).update({ score });
      }
      continue;
    }
    const seq = ((prev?.seq as number | undefined) ?? 0) + 1;
    await trx('segment_memberships')
      .insert({ segment_pk: segment.pk, user_pk: user.id, is_member: matched, score, seq, changed_at: trx.fn.now() })
      .onConflict(['segment_pk', 'user_pk'])
      .merge(['is_member', 'score', 'seq', 'changed_at']);
    const eventType = matched ? 'user_added' : 'user_removed';
    const [event] = await trx('events')
      .insert({
        project_id: user.project_id,
        pipeline_id: segment.pipeline_id,
        segment_pk: segment.pk,
        segment_slug: segment.slug,
        segment_name: segment.name,
        user_pk: user.id,
        user_id: user.user_id,
        event_type: eventType,
        score,
        seq,
      })
      .returning('id');
    await queueSubscribedDeliveries(trx, {
      eventId: event.id,
      pipelineId: segment.pipeline_id,
      eventType,
      segmentSlug: segment.slug,
    });
    changes++;
  }
  if (changes > 0) await wakeRelay(trx);
  return changes;
}
