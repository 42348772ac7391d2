import { createHash } from 'node:crypto';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import type { Logger } from '../logger.js';
import { invalid } from '../errors.js';
import { requireProject } from '../projects/projects.js';
import { validateBatch } from './validate-batch.js';

export interface IdentifyUsersResult {
  accepted: number;
  source_id: number;
  message: string;
}

/** Starts the batch workflow; implemented over the Temporal client. */
export interface BatchStarter {
  startBatch(args: { sourceId: number; projectId: number; userCount: number }): Promise<void>;
}

export interface IdentifyDeps {
  db: Db;
  batches: BatchStarter;
  log: Logger;
  now?: () => Date;
}

const IDEMPOTENCY_TTL_HOURS = 24;

/**
 * Stores the batch (source row + raw items) in one transaction, then starts its workflow in the background.
 * If Temporal is away the answer is still 202: the relay starts every stored batch whose
 * workflow is not known to run, so accepted data is never lost.
 */
export async function identifyUsers(
  deps: IdentifyDeps,
  caller: Caller,
  body: unknown,
  idempotencyKey?: string,
): Promise<IdentifyUsersResult> {
  const now = deps.now?.() ?? new Date();
  const batch = validateBatch(body, now);
  if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 200)) {
    throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 200 characters');
  }
  await requireProject(deps.db, caller, batch.projectId);

  const keyHash = idempotencyKey ? createHash('sha256').update(idempotencyKey).digest('hex') : undefined;
  const stored = await deps.db.transaction(async (trx): Promise<{ replay: IdentifyUsersResult } | { created: IdentifyUsersResult }> => {
    if (keyHash) {
      // Serialise twins with the same key; a key older than 24 h is forgotten and reused.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`${caller.tenantId}:${keyHash}`]);
      const previous = await trx('idempotency_keys').where({ tenant_id: caller.tenantId, key: keyHash }).first();
      if (previous && previous.created_at.getTime() > now.getTime() - IDEMPOTENCY_TTL_HOURS * 3_600_000) {
        return { replay: previous.response as IdentifyUsersResult };
      }
      if (previous) await trx('idempotency_keys').where({ tenant_id: caller.tenantId, key: keyHash }).delete();
    }
    const [source] = await trx('sources')
      .insert({ project_id: batch.projectId, label: batch.sourceLabel, user_count: batch.items.length })
      .returning('id');
    const rows = batch.items.map((item, idx) => ({
      source_id: source.id,
      idx,
      user_id: item.user_id,
      text: item.text,
      attributes: JSON.stringify(item.attributes),
      written_at: item.timestamp,
    }));
    for (let i = 0; i < rows.length; i += 500) await trx('source_items').insert(rows.slice(i, i + 500));
    const result: IdentifyUsersResult = {
      accepted: batch.items.length,
      source_id: source.id as number,
      message: `Accepted ${batch.items.length} users; analysis runs in the background (workflow batch-${source.id}).`,
    };
    if (keyHash) await trx('idempotency_keys').insert({ tenant_id: caller.tenantId, key: keyHash, response: result });
    return { created: result };
  });
  if ('replay' in stored) return stored.replay;

  const result = stored.created;
  // The batch is durable now: answer at once and start its workflow in the background, so a busy
  // Temporal does not slow the 202. A start that fails (or a process that dies first) is left to
  // the relay, which starts every batch still unstarted after 3 s; starts are idempotent by id.
  void startStored(deps, result, batch.projectId);
  return result;
}

async function startStored(deps: IdentifyDeps, result: IdentifyUsersResult, projectId: number): Promise<void> {
  try {
    await deps.batches.startBatch({ sourceId: result.source_id, projectId, userCount: result.accepted });
    await deps.db('sources').where({ id: result.source_id }).update({ workflow_started_at: deps.db.fn.now() });
  } catch (err) {
    deps.log.warn('batch stored; workflow start deferred to the relay', { source_id: result.source_id, err });
  }
}
