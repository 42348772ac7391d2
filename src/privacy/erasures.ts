import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import type { Caller } from '../auth/api-keys.js';
import { invalid, notFound } from '../errors.js';
import { canReach, requireProject } from '../projects/projects.js';
import { isUuid, optionalInt, requireId } from '../validation.js';
import { requireStoredUserId } from '../ingest/validate-batch.js';
import type { UserHash, UserHasher } from '../user-hash.js';

/**
 * The audit trail of erasures and retention sweeps: when, by which key (its 8-character prefix,
 * as the admin tool lists keys), and how many rows of each kind went. Never a text; the user only
 * as the keyed hash suppressions use, so the trail can answer "was this id erased?" (list with
 * `user_id`, matched under the current and every previous SECRETS_KEY) without holding the id.
 * key_id says which key made the hash; a row's hash is never re-made (the trail is history), so
 * once a key is retired its rows are no longer found by id (docs/operations.md).
 */
export interface ErasureCounts {
  /** Stored batch items blanked (their user id, text and attributes). */
  batch_items: number;
  /** Messages deleted (erasure) or whose text and vector were erased (retention). */
  messages: number;
  memberships: number;
  /** The user's earlier events deleted, with their deliveries. */
  events: number;
  profiles: number;
  /** `user_removed` events emitted, one per segment the user was a member of. */
  user_removed_events: number;
}

/** Counts of an erasure that removed nothing yet. */
export function noCounts(): ErasureCounts {
  return { batch_items: 0, messages: 0, memberships: 0, events: 0, profiles: 0, user_removed_events: 0 };
}

export interface ErasureView {
  /** Public id (a UUID, unique across deployments). */
  id: string;
  kind: 'erasure' | 'retention';
  state: 'completed';
  project_id: number;
  /** The keyed hash of the erased user id (suppressions.ts); null for a retention sweep. */
  user_id_hash: string | null;
  suppressed: boolean;
  /** Prefix of the API key that asked; null for the worker's retention sweep. */
  requested_by: string | null;
  counts: ErasureCounts;
  requested_at: Date;
  completed_at: Date | null;
}

const COLUMNS = [
  'id',
  'uid',
  'kind',
  'state',
  'project_id',
  'user_hash',
  'suppressed',
  'requested_by',
  'counts',
  'requested_at',
  'completed_at',
];

function toView(r: Record<string, any>): ErasureView {
  return {
    id: r.uid,
    kind: r.kind,
    state: r.state,
    project_id: Number(r.project_id),
    user_id_hash: r.user_hash,
    suppressed: r.suppressed,
    requested_by: r.requested_by,
    counts: r.counts,
    requested_at: r.requested_at,
    completed_at: r.completed_at,
  };
}

/** Writes an audit row in the caller's transaction (the erasure's or the sweep's own). */
export async function recordErasure(
  trx: Knex.Transaction,
  e: {
    projectId: number;
    kind: 'erasure' | 'retention';
    userHash?: UserHash;
    suppressed?: boolean;
    requestedBy?: string;
    counts: ErasureCounts;
  },
): Promise<{ pk: number; view: ErasureView }> {
  const [row] = await trx('erasures')
    .insert({
      project_id: e.projectId,
      kind: e.kind,
      state: 'completed',
      user_hash: e.userHash?.hash ?? null,
      key_id: e.userHash?.keyId ?? null,
      suppressed: e.suppressed ?? false,
      requested_by: e.requestedBy ?? null,
      counts: JSON.stringify(e.counts),
      completed_at: trx.fn.now(),
    })
    .returning(COLUMNS);
  return { pk: Number(row.id), view: toView(row) };
}

/** One erasure of the caller's tenant; another tenant's, or an id that is no UUID, is 404. */
export async function getErasure(db: Db, caller: Caller, id: string): Promise<ErasureView> {
  if (!isUuid(id)) throw notFound('erasure');
  const row = await db('erasures as e')
    .join('projects as p', 'p.id', 'e.project_id')
    .where({ 'e.uid': id, 'p.tenant_id': caller.tenantId })
    .first(COLUMNS.map((c) => `e.${c}`));
  // An erasure of a project outside the key's is answered as one that does not exist.
  if (!row || !canReach(caller, Number(row.project_id))) throw notFound('erasure');
  return toView(row);
}

export interface ListErasuresInput {
  projectId: number;
  /** Only the erasures of this user id (matched by its keyed hash). */
  userId?: string;
  kind?: string;
  limit?: number;
  offset?: number;
}

/** A project's audit trail, newest first. */
export async function listErasures(
  deps: { db: Db; userHash: UserHasher },
  caller: Caller,
  q: ListErasuresInput,
): Promise<{ erasures: ErasureView[] }> {
  const projectId = requireId(q.projectId, 'project_id');
  const limit = optionalInt(q.limit, 'limit', 1, 100) ?? 20;
  const offset = optionalInt(q.offset, 'offset', 0, 1_000_000_000) ?? 0;
  if (q.kind !== undefined && q.kind !== '' && q.kind !== 'erasure' && q.kind !== 'retention') {
    throw invalid('kind', 'kind must be erasure or retention');
  }
  await requireProject(deps.db, caller, projectId);
  const query = deps.db('erasures').where({ project_id: projectId });
  if (q.userId !== undefined && q.userId !== '') {
    const hashes = deps.userHash.all(projectId, requireStoredUserId(q.userId, 'user_id'));
    query.whereIn(
      'user_hash',
      hashes.map((h) => h.hash),
    );
  }
  if (q.kind) query.where({ kind: q.kind });
  const rows = await query.orderBy('id', 'desc').limit(limit).offset(offset).select(COLUMNS);
  return { erasures: rows.map(toView) };
}
