import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import { invalid } from '../errors.js';
import { isUuid, optionalInt } from '../validation.js';
import type { Caller } from './api-keys.js';

/**
 * The audit trail of a tenant's keys (issue 48): every creation and revocation, the operator's
 * too, written in the transaction that makes the change, with the acting key's prefix.
 */

export interface ApiKeyEvent {
  id: string;
  action: 'created' | 'revoked';
  key_id: string;
  key_prefix: string;
  key_name: string;
  /** `admin` (the operator's token) or the acting key's prefix. */
  actor: string;
  at: Date;
}

export async function recordEvent(
  trx: Knex.Transaction,
  tenantId: number,
  action: ApiKeyEvent['action'],
  key: { uid: string; prefix: string; name: string },
  actor: string,
): Promise<void> {
  await trx('api_key_events').insert({
    tenant_id: tenantId,
    action,
    key_uid: key.uid,
    key_prefix: key.prefix,
    key_name: key.name,
    actor,
  });
}

/** The audit trail of key creations and revocations, newest first; `before` pages back by event id. */
export async function listApiKeyEvents(
  db: Db,
  caller: Caller,
  q: { limit?: number; before?: string },
): Promise<ApiKeyEvent[]> {
  const limit = optionalInt(q.limit, 'limit', 1, 1_000) ?? 100;
  // A key limited to projects sees the events of keys limited within them: filtered before the
  // limit, so a page is full whenever there are events to fill it.
  const visible = (query: Knex.QueryBuilder, keys: string) => {
    if (caller.projects !== null)
      query.whereNotNull(`${keys}.project_ids`).whereRaw(`${keys}.project_ids <@ ?::bigint[]`, [[...caller.projects]]);
    return query;
  };
  const query = visible(
    db('api_key_events as e')
      .join('api_keys as k', 'k.uid', 'e.key_uid')
      .where({ 'e.tenant_id': caller.tenantId })
      .orderBy('e.id', 'desc')
      .limit(limit)
      .select('e.uid', 'e.action', 'e.key_uid', 'e.key_prefix', 'e.key_name', 'e.actor', 'e.at'),
    'k',
  );
  if (q.before !== undefined) {
    if (!isUuid(q.before)) throw invalid('before', 'before must be an event id');
    // Only an event the caller may see pages: another is looked up as nothing.
    query.where(
      'e.id',
      '<',
      visible(
        db('api_key_events as b')
          .join('api_keys as bk', 'bk.uid', 'b.key_uid')
          .select('b.id')
          .where({ 'b.uid': q.before, 'b.tenant_id': caller.tenantId }),
        'bk',
      ),
    );
  }
  const rows: Record<string, any>[] = await query;
  return rows.map((r) => ({
    id: r.uid,
    action: r.action,
    key_id: r.key_uid,
    key_prefix: r.key_prefix,
    key_name: r.key_name,
    actor: r.actor,
    at: r.at,
  }));
}

/** The audit row of a key the operator made or revoked (admin routes), in the caller's transaction. */
export async function recordAdminKeyEvent(
  trx: Knex.Transaction,
  tenantId: number,
  action: ApiKeyEvent['action'],
  key: { uid: string; prefix: string; name: string },
): Promise<void> {
  await recordEvent(trx, tenantId, action, key, 'admin');
}
