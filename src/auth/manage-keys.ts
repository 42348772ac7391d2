import type { Db } from '../db/knex.js';
import { AppError, invalid, notFound, quotaExceeded } from '../errors.js';
import { reachesAll } from '../projects/projects.js';
import { isUuid, requireId, requireName } from '../validation.js';
import { generateApiKey, hashApiKey, type Caller } from './api-keys.js';
import { REVOKED_CHANNEL } from './key-cache.js';
import { recordEvent } from './key-events.js';
import { holdsScope, isScope, SCOPES, type Scope } from './scopes.js';

/**
 * A tenant's own API keys (issue 48; docs/api.md "API keys and scopes"): created with a name, the
 * scopes and projects they need and an expiry, listed without their secrets, revoked everywhere at
 * once. A key never makes or revokes a key wider than itself: each scope it gives it holds, each
 * project it names it reaches, and a key that expires gives no key a later expiry.
 */

/** Keys of one tenant not revoked (expired ones count until revoked): each is a credential to watch. */
export const API_KEYS_PER_TENANT = 100;
/** Projects one key may be limited to. */
export const PROJECTS_PER_KEY = 100;
/** The furthest expiry accepted: ten years. */
const MAX_EXPIRY_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ApiKeyInput {
  name: string;
  scopes: string[];
  /** Absent: the acting key's own projects; null: every project of the tenant. */
  projects?: number[] | null;
  /** RFC 3339; absent: the acting key's own expiry; null: never. */
  expires_at?: string | null;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  projects: number[] | null;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** What creation answers: the view, and the secret, shown this once and stored nowhere. */
export interface NewApiKey extends ApiKeyView {
  api_key: string;
}

const COLUMNS = [
  'uid',
  'name',
  'prefix',
  'scopes',
  'project_ids',
  'created_by',
  'created_at',
  'last_used_at',
  'expires_at',
  'revoked_at',
];

function toView(r: Record<string, any>): ApiKeyView {
  return {
    id: r.uid,
    name: r.name,
    prefix: r.prefix,
    scopes: (r.scopes as string[]).filter(isScope),
    projects: r.project_ids === null ? null : (r.project_ids as (string | number)[]).map(Number),
    created_by: r.created_by ?? 'admin',
    created_at: r.created_at,
    last_used_at: r.last_used_at,
    expires_at: r.expires_at,
    revoked_at: r.revoked_at,
  };
}

const actorOf = (caller: Caller) => caller.keyPrefix ?? 'admin';

function readScopes(caller: Caller, value: unknown): Scope[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid('scopes', `scopes must be a non-empty array of: ${SCOPES.join(', ')}`);
  }
  const scopes: Scope[] = [];
  value.forEach((s, i) => {
    if (!isScope(s)) throw invalid(`scopes[${i}]`, `scopes[${i}] must be one of: ${SCOPES.join(', ')}`);
    if (!holdsScope(caller.scopes, s)) {
      throw new AppError(
        'permission_denied',
        `a key cannot give a scope it does not hold: this API key lacks the scope "${s}"`,
        `scopes[${i}]`,
      );
    }
    if (!scopes.includes(s)) scopes.push(s);
  });
  return scopes;
}

async function readProjects(db: Db, caller: Caller, value: unknown): Promise<number[] | null> {
  if (value === undefined) return caller.projects === null ? null : [...caller.projects];
  if (value === null) {
    if (caller.projects !== null) {
      throw new AppError(
        'permission_denied',
        'a key limited to some projects cannot make a key for every project: name the projects',
        'projects',
      );
    }
    return null;
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > PROJECTS_PER_KEY) {
    throw invalid('projects', `projects must be null (every project) or 1 to ${PROJECTS_PER_KEY} project ids`);
  }
  const ids = [...new Set(value.map((v, i) => requireId(v, `projects[${i}]`)))];
  const found = await db('projects').where({ tenant_id: caller.tenantId }).whereIn('id', ids).pluck('id');
  const known = new Set(found.map(Number));
  ids.forEach((id) => {
    // Another tenant's, missing, or outside the acting key's projects: all the same answer.
    if (!known.has(id) || !reachesAll(caller, [id])) throw notFound('project');
  });
  return ids.sort((a, b) => a - b);
}

function readExpiry(caller: Caller, value: unknown, now: number): Date | null {
  if (value === undefined) return caller.expiresAt;
  if (value === null) {
    if (caller.expiresAt) {
      throw new AppError(
        'permission_denied',
        'a key that expires cannot make a key that never does: give expires_at',
        'expires_at',
      );
    }
    return null;
  }
  const at = typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime()) || at.getTime() <= now || at.getTime() > now + MAX_EXPIRY_MS) {
    throw invalid('expires_at', 'expires_at must be an RFC 3339 time in the future, at most ten years ahead, or null');
  }
  if (caller.expiresAt && at.getTime() > caller.expiresAt.getTime()) {
    throw new AppError(
      'permission_denied',
      `a key cannot outlive the key that makes it: expires_at must be at most ${caller.expiresAt.toISOString()}`,
      'expires_at',
    );
  }
  return at;
}

/**
 * Stores a new key of the tenant (its hash; the secret is answered once), in one transaction with
 * its audit row. `caller` is the acting key; the operator's first key goes through createTenant.
 */
export async function createApiKey(db: Db, caller: Caller, input: ApiKeyInput): Promise<NewApiKey> {
  const name = requireName(input.name);
  const scopes = readScopes(caller, input.scopes);
  const expiresAt = readExpiry(caller, input.expires_at, Date.now());
  const projects = await readProjects(db, caller, input.projects);
  const apiKey = generateApiKey();
  return db.transaction(async (trx) => {
    // The acting key is still valid now, held until the commit: a revocation racing this request
    // (checked against the key a moment before) either comes first, and nothing is made, or waits.
    const acting = await trx.raw(
      'SELECT 1 FROM api_keys WHERE uid = ? AND tenant_id = ? AND revoked_at IS NULL FOR SHARE',
      [caller.keyId ?? null, caller.tenantId],
    );
    if (acting.rows.length === 0) throw new AppError('unauthenticated', 'invalid API key');
    // The tenant row serialises creations against the quota.
    await trx.raw('SELECT 1 FROM tenants WHERE id = ? FOR NO KEY UPDATE', [caller.tenantId]);
    const [{ n }] = await trx('api_keys')
      .where({ tenant_id: caller.tenantId })
      .whereNull('revoked_at')
      .count({ n: '*' });
    if (Number(n) >= API_KEYS_PER_TENANT) {
      throw quotaExceeded('api_keys', `a tenant may have at most ${API_KEYS_PER_TENANT} keys; revoke one first`);
    }
    const [row] = await trx('api_keys')
      .insert({
        tenant_id: caller.tenantId,
        key_hash: hashApiKey(apiKey),
        prefix: apiKey.slice(0, 8),
        name,
        scopes,
        project_ids: projects,
        expires_at: expiresAt,
        created_by: actorOf(caller),
      })
      .returning(COLUMNS);
    await recordEvent(trx, caller.tenantId, 'created', row, actorOf(caller));
    return { ...toView(row), api_key: apiKey };
  });
}

/** The tenant's keys not revoked, oldest first; a key limited to projects sees the keys within them. */
export async function listApiKeys(db: Db, caller: Caller): Promise<ApiKeyView[]> {
  const rows = await db('api_keys')
    .where({ tenant_id: caller.tenantId })
    .whereNull('revoked_at')
    .orderBy('id')
    .select(COLUMNS);
  return rows.map(toView).filter((k) => reachesAll(caller, k.projects));
}

/** The acting key itself: what the console asks to know what to show. Needs no scope. */
export async function currentApiKey(db: Db, caller: Caller): Promise<ApiKeyView> {
  const row = await db('api_keys')
    .where({ uid: caller.keyId ?? null, tenant_id: caller.tenantId })
    .first(COLUMNS);
  if (!row) throw notFound('API key');
  return toView(row);
}

/**
 * Revokes a key of the tenant by its id: refused by every api process from the next request (the
 * notification goes out with the commit; auth/key-cache.ts). A key revokes itself, or a key no
 * wider than itself (403 otherwise); one outside its projects, another tenant's, a revoked or an
 * unknown one is 404.
 */
export async function revokeApiKeyById(db: Db, caller: Caller, id: string): Promise<ApiKeyView> {
  if (!isUuid(id)) throw notFound('API key');
  return db.transaction(async (trx) => {
    const row = await trx('api_keys')
      .where({ uid: id, tenant_id: caller.tenantId })
      .whereNull('revoked_at')
      .forUpdate()
      .first(COLUMNS);
    if (!row) throw notFound('API key');
    const target = toView(row);
    if (!reachesAll(caller, target.projects)) throw notFound('API key');
    if (target.id !== caller.keyId && !target.scopes.every((s) => holdsScope(caller.scopes, s))) {
      throw new AppError('permission_denied', 'a key cannot revoke a key with scopes it does not hold', 'id');
    }
    const [updated] = await trx('api_keys').where({ uid: id }).update({ revoked_at: trx.fn.now() }).returning(COLUMNS);
    await recordEvent(trx, caller.tenantId, 'revoked', row, actorOf(caller));
    await trx.raw('SELECT pg_notify(?, ?)', [REVOKED_CHANNEL, '']);
    return toView(updated);
  });
}
