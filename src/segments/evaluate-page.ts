import type { Db } from '../db/knex.js';
import { diffMemberships, type LoadedSegment } from './memberships.js';
import type { ConditionVectors } from './condition-vectors.js';
import { keepBeating } from '../keep-beating.js';
import { stampEvaluation } from './evaluation-start.js';

export interface EvaluateSegmentPageInput {
  segmentPk: number;
  version: number;
  afterUserPk: number;
  pageSize: number;
}

export interface EvaluateSegmentPageOutput {
  /** Null when the last page was done, or the segment changed or was undeployed meanwhile. */
  nextAfterUserPk: number | null;
  evaluated: number;
  changes: number;
}

/**
 * Evaluates one page of the project's profiles against a newly deployed (or changed) segment.
 * Each user is diffed in its own transaction under its row lock, exactly as message processing
 * does, so a concurrent message and the deploy never disagree. Re-running a page is harmless:
 * an unchanged membership produces no event.
 */
export async function evaluateSegmentPage(
  deps: { db: Db; conditionVectors: ConditionVectors; heartbeat?: () => void; lane?: number },
  input: EvaluateSegmentPageInput,
): Promise<EvaluateSegmentPageOutput> {
  const { db } = deps;
  const segment = await db('segments')
    .where({ pk: input.segmentPk })
    .first('pk', 'pipeline_id', 'project_id', 'slug', 'name', 'rule', 'status', 'version');
  if (!segment || segment.status !== 'deployed' || segment.version !== input.version) {
    return { nextAfterUserPk: null, evaluated: 0, changes: 0 };
  }
  const loaded: LoadedSegment = segment;
  // The rule's semantic conditions were embedded and stored when it was written; only a segment
  // stored before that or a new embedder makes this page embed them (once): keep beating meanwhile.
  const semanticEmbeddings = await keepBeating(
    deps.heartbeat,
    5_000,
    deps.conditionVectors.forSegments(db, [loaded], deps.lane),
  );
  const ids: number[] = await db('users')
    .where({ project_id: segment.project_id })
    .whereNotNull('aggregates')
    .where('id', '>', input.afterUserPk)
    .orderBy('id')
    .limit(input.pageSize)
    .pluck('id');
  let changes = 0;
  for (const id of ids) {
    deps.heartbeat?.();
    const r = await db.transaction(async (trx) => {
      const user = await trx('users')
        .where({ id })
        .forUpdate()
        .first('id', 'user_id', 'project_id', 'attributes', 'aggregates', 'profile_embedding');
      // Held until commit: an undeploy, delete or rule change waits for this user, or this user sees it.
      const now = await trx('segments').where({ pk: segment.pk }).forShare().first('status', 'version');
      if (!now || now.status !== 'deployed' || now.version !== input.version) return null;
      return diffMemberships(
        trx,
        user,
        {
          aggregates: user.aggregates,
          attributes: user.attributes,
          profileEmbedding: user.profile_embedding,
          semanticEmbeddings,
        },
        [loaded],
      );
    });
    if (r === null) return { nextAfterUserPk: null, evaluated: ids.indexOf(id), changes };
    changes += r;
  }
  const last = ids.length < input.pageSize;
  // Running evaluations count against their tenant's admission (see evaluation-start.ts).
  await stampEvaluation(db, { pk: segment.pk, version: input.version }, last);
  return { nextAfterUserPk: last ? null : ids[ids.length - 1], evaluated: ids.length, changes };
}
