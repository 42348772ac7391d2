import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import type { Logger } from '../observability/logger.js';
import { requireProject } from '../projects/projects.js';
import { validateBatch, type IdentifyUsersInput } from './validate-batch.js';
import {
  lockTenantBatches,
  startStoredBatch,
  storeBatch,
  type BatchStarter,
  type StoredBatch,
} from './batch-lifecycle.js';
import { idempotencyScope, lockIdempotencyKey, rememberAnswer } from '../idempotency.js';
import { AppError } from '../errors.js';
import type { Quotas } from '../quotas.js';
import { batchesAccepted } from '../metrics/registry.js';
import { checkMergedAttributes } from './attribute-bounds.js';
import { suppressedItems } from './suppressed-items.js';
import type { UserHasher } from '../user-hash.js';

export type { IdentifyUsersInput } from './validate-batch.js';

export interface IdentifyUsersResult {
  accepted: number;
  source_id: number;
  message: string;
  /** Extension: items skipped because their user id is suppressed (privacy/suppressions.ts); only when some were. */
  suppressed?: number;
}

export interface IdentifyDeps {
  db: Db;
  batches: BatchStarter;
  log: Logger;
  quotas: Pick<Quotas, 'batchesInFlight' | 'batchesRunning'>;
  userHash: UserHasher;
  now?: () => Date;
}

/**
 * Stores the batch (source row + raw items) in one transaction, then starts its workflow in the background.
 * If Temporal is away the answer is still 202: the relay starts every stored batch whose
 * workflow is not known to run, so accepted data is never lost.
 */
export async function identifyUsers(
  deps: IdentifyDeps,
  caller: Caller,
  input: IdentifyUsersInput,
  idempotencyKey?: string,
): Promise<IdentifyUsersResult> {
  const now = deps.now?.() ?? new Date();
  const batch = validateBatch(input, now);
  // The request as the client sent it (before defaults such as the submission time are filled in).
  const scope = idempotencyScope(caller, idempotencyKey, { operation: 'identify_users', body: documentedShape(input) });
  await requireProject(deps.db, caller, batch.projectId);

  const stored = await deps.db.transaction(
    async (
      trx,
    ): Promise<
      { replay: IdentifyUsersResult } | { created: IdentifyUsersResult; source: StoredBatch; admitted: boolean }
    > => {
      if (scope) {
        const previous = await lockIdempotencyKey(trx, scope, now);
        if (previous) return { replay: previous as IdentifyUsersResult };
      }
      // After the replay: a retry answers what the first request was answered, whatever came since.
      const admitted = await holdBatchQuota(trx, caller.tenantId, deps.quotas);
      // Under the tenant's batch lock, which an erasure holds too: a suppression is either seen
      // here or committed after this batch, whose items the erasure then takes.
      const skip = await suppressedItems(
        trx,
        deps.userHash,
        batch.projectId,
        batch.items.map((i) => i.user_id),
      );
      // Under the same lock: every batch of the tenant not yet folded is stored and counted, so two
      // batches in flight together cannot both pass a user's attribute bounds (attribute-bounds.ts).
      await checkMergedAttributes(trx, batch.projectId, batch.items, skip);
      const items = skip.size ? batch.items.filter((_, i) => !skip.has(i)) : batch.items;
      const source = await storeBatch(trx, { ...batch, items }, admitted, skip.size);
      const result: IdentifyUsersResult = {
        accepted: items.length,
        source_id: source.id,
        message: `Accepted ${items.length} users; analysis runs in the background (source ${source.id}).`,
        ...(skip.size > 0 && { suppressed: skip.size }),
      };
      if (scope) await rememberAnswer(trx, scope, result);
      return { created: result, source: { ...source, tenant_id: caller.tenantId }, admitted };
    },
  );
  if ('replay' in stored) return stored.replay;
  batchesAccepted.inc();
  // Over its tenant's running batches: it waits, stored, until the relay admits it.
  if (!stored.admitted) return stored.created;

  // The batch is durable now: answer at once and start its workflow in the background, so a busy
  // Temporal does not slow the 202. A start that fails (or a process that dies first) is left to
  // the relay, which starts every batch still unstarted after 3 s; starts are idempotent by id.
  void startStoredBatch(deps.db, deps.batches, stored.source).catch((err: unknown) =>
    deps.log.warn('batch stored; workflow start deferred to the relay', { source_id: stored.source.id, err }),
  );
  return stored.created;
}

/**
 * The submission in its documented JSON shape, which is what idempotency hashes: the same request
 * hashes the same whichever transport carried it, and keys stored before inputs were typed still
 * match their retries.
 */
function documentedShape(input: IdentifyUsersInput) {
  return {
    project_id: input.projectId,
    source_label: input.sourceLabel ?? undefined,
    users: input.users.map((u) => ({
      user_id: u.userId,
      text: u.text,
      attributes: u.attributes ?? undefined,
      timestamp: u.timestamp instanceof Date ? u.timestamp.toISOString() : (u.timestamp ?? undefined),
    })),
  };
}

/** Seconds a client is asked to wait when its tenant has too many batches in flight. */
const BATCH_QUOTA_RETRY_AFTER_S = 5;

/**
 * One tenant's backlog is bounded: past `batchesInFlight` batches not yet completed, a submission
 * is 429 with `Retry-After` (nothing stored). Answers whether the new batch may run at once (fewer
 * than `batchesRunning` of the tenant's batches are admitted; see batch-lifecycle.ts). Submissions
 * of a tenant serialise on its batch lock, so concurrent ones cannot all take the last place.
 */
async function holdBatchQuota(
  trx: Knex.Transaction,
  tenantId: number,
  quotas: Pick<Quotas, 'batchesInFlight' | 'batchesRunning'>,
): Promise<boolean> {
  const { inFlight, running } = await lockTenantBatches(trx, tenantId);
  const max = quotas.batchesInFlight;
  if (inFlight >= max) {
    throw new AppError(
      'rate_limited',
      `this tenant has ${inFlight} batches still being analysed (at most ${max}, TENANT_BATCHES_IN_FLIGHT); retry later`,
      undefined,
      BATCH_QUOTA_RETRY_AFTER_S,
    );
  }
  return running < quotas.batchesRunning;
}
