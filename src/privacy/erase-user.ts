import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { requireProject } from '../projects/projects.js';
import { holdTenantBatchLock } from '../ingest/batch-lifecycle.js';
import { queueSubscribedDeliveries, wakeRelay } from '../outbox/outbox.js';
import { requireId } from '../validation.js';
import { requireStoredUserId } from '../ingest/validate-batch.js';
import { noCounts, recordErasure, type ErasureCounts, type ErasureView } from './erasures.js';
import { moveSuppressionsToCurrentKey } from './suppressions.js';
import type { UserHasher } from '../user-hash.js';

export interface EraseUserInput {
  projectId: number;
  userId: string;
  /** Later batches that name the user skip them (suppressions.ts). */
  suppress?: boolean;
}

export interface EraseDeps {
  db: Db;
  userHash: UserHasher;
}

/**
 * Erases everything stored about one user of a project, in ONE transaction, before the 202:
 * - their items in every stored batch, including batches still in their chunks: user id, text and
 *   attributes blanked and the item marked `skipped = 'erased'` (the row stays so the batch's
 *   chunks keep their indexes; process-chunk.ts skips it, and a fold already under way holds the
 *   item's row lock, so this waits for it and then deletes what it wrote);
 * - their events but the ones this emits, with those events' outbox rows and delivery attempts;
 * - their messages (text, vector, analysis), memberships and profile (the count triggers follow);
 * - for each segment they were a member of, a `user_removed` with reason `erased`, queued to the
 *   subscribed webhooks in this transaction (the outbox): the customer's systems forget them too.
 *
 * It holds the tenant's batch lock (batch-lifecycle.ts) meanwhile, so a submission is stored
 * either before (and its items are erased here) or after (and it finds the suppression): the user
 * cannot come back from a batch accepted before the erasure, nor from a retried chunk. Submissions
 * of the tenant wait for it: milliseconds for a user of a few hundred messages.
 *
 * Idempotent: erasing again (or an id never seen) erases nothing more and is recorded with zero
 * counts. Returns the audit row (erasures.ts), which carries the id only as a keyed hash.
 */
export async function eraseUser(deps: EraseDeps, caller: Caller, input: EraseUserInput): Promise<ErasureView> {
  const projectId = requireId(input.projectId, 'project_id');
  const userId = requireStoredUserId(input.userId, 'user_id');
  await requireProject(deps.db, caller, projectId);
  const userHash = deps.userHash.current(projectId, userId);
  const earlier = deps.userHash.all(projectId, userId).slice(1);
  return deps.db.transaction(async (trx) => {
    await holdTenantBatchLock(trx, caller.tenantId);
    const counts = await eraseRows(trx, projectId, userId);
    // The id is known again: a suppression made under a previous key moves to the current one.
    await moveSuppressionsToCurrentKey(trx, projectId, [
      { staleHashes: earlier.map((h) => h.hash), current: userHash },
    ]);
    if (input.suppress) {
      await trx('suppressions')
        .insert({ project_id: projectId, user_hash: userHash.hash, key_id: userHash.keyId })
        .onConflict()
        .ignore();
    }
    const erasure = await recordErasure(trx, {
      projectId,
      kind: 'erasure',
      userHash,
      suppressed: input.suppress === true,
      requestedBy: caller.keyPrefix,
      counts,
    });
    if (input.suppress) {
      await trx('suppressions')
        .where({ project_id: projectId, user_hash: userHash.hash })
        .update({ erasure_id: erasure.pk });
    }
    return erasure.view;
  });
}

async function eraseRows(trx: Knex.Transaction, projectId: number, userId: string): Promise<ErasureCounts> {
  // Items first: a fold in flight holds its item's lock until it commits (process-chunk.ts), so
  // what it wrote is visible to the deletes below.
  const batchItems = await trx.raw(
    `UPDATE source_items si SET user_id = '', text = NULL, attributes = '{}', skipped = 'erased'
       FROM sources s
      WHERE si.user_id = ? AND s.id = si.source_id AND s.project_id = ?`,
    [userId, projectId],
  );
  const counts: ErasureCounts = { ...noCounts(), batch_items: batchItems.rowCount ?? 0 };
  const user = await trx('users').where({ project_id: projectId, user_id: userId }).forUpdate().first('id');
  if (!user) return counts;

  // The user's earlier events go, with their outbox rows and attempts (cascade); a delivery
  // workflow still running for one stops with "event deleted" (deliver-attempt.ts).
  counts.events = await trx('events').where({ user_pk: user.id }).delete();
  const memberships = await trx('segment_memberships as m')
    .join('segments as s', 's.pk', 'm.segment_pk')
    .where({ 'm.user_pk': user.id, 'm.is_member': true })
    .select('m.segment_pk', 'm.seq', 's.pipeline_id', 's.slug', 's.name');
  for (const m of memberships) {
    const [event] = await trx('events')
      .insert({
        project_id: projectId,
        pipeline_id: m.pipeline_id,
        segment_pk: m.segment_pk,
        segment_slug: m.slug,
        segment_name: m.name,
        // Set to null with the user's row below: the event keeps the id (user_id) and nothing else.
        user_pk: user.id,
        user_id: userId,
        event_type: 'user_removed',
        reason: 'erased',
        score: 0,
        seq: m.seq + 1,
      })
      .returning('id');
    await queueSubscribedDeliveries(trx, {
      eventId: event.id,
      pipelineId: m.pipeline_id,
      eventType: 'user_removed',
      segmentSlug: m.slug,
    });
  }
  counts.user_removed_events = memberships.length;
  counts.memberships = await trx('segment_memberships').where({ user_pk: user.id }).delete();
  counts.messages = await trx('messages').where({ user_pk: user.id }).delete();
  counts.profiles = await trx('users').where({ id: user.id }).delete();
  if (memberships.length > 0) await wakeRelay(trx);
  return counts;
}
