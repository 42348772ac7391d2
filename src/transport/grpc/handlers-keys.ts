import type { ApiKey, KeysServiceServer } from '../../../gen/profiling/v1/keys.js';
import type { AppContext } from '../../app.js';
import * as keys from '../../auth/manage-keys.js';
import { listApiKeyEvents } from '../../auth/key-events.js';
import { unary } from './unary.js';

export function apiKeyToProto(k: keys.ApiKeyView): ApiKey {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    allProjects: k.projects === null,
    projects: k.projects ?? [],
    createdBy: k.created_by,
    createdAt: k.created_at,
    lastUsedAt: k.last_used_at ?? undefined,
    expiresAt: k.expires_at ?? undefined,
    revokedAt: k.revoked_at ?? undefined,
  };
}

/** KeysService: the gateway's /api/v1/api-keys routes, over the same use cases (auth/manage-keys.ts). */
export function keysService(ctx: AppContext): KeysServiceServer {
  const { db } = ctx;
  return {
    createApiKey: unary(ctx, 'keys', async (caller, req) => {
      const created = await keys.createApiKey(db, caller, {
        name: req.name,
        scopes: req.scopes,
        projects: req.projects === undefined ? undefined : req.projects.allProjects ? null : req.projects.projects,
        expires_at: req.expiresAt?.toISOString(),
      });
      return { key: apiKeyToProto(created), apiKey: created.api_key };
    }),
    listApiKeys: unary(ctx, 'keys', async (caller) => ({
      keys: (await keys.listApiKeys(db, caller)).map(apiKeyToProto),
    })),
    revokeApiKey: unary(ctx, 'keys', async (caller, req) => ({
      key: apiKeyToProto(await keys.revokeApiKeyById(db, caller, req.id)),
    })),
    getCurrentApiKey: unary(ctx, null, async (caller) => ({
      key: apiKeyToProto(await keys.currentApiKey(db, caller)),
    })),
    listApiKeyEvents: unary(ctx, 'keys', async (caller, req) => ({
      events: (await listApiKeyEvents(db, caller, { limit: req.limit, before: req.before })).map((e) => ({
        id: e.id,
        action: e.action,
        keyId: e.key_id,
        keyPrefix: e.key_prefix,
        keyName: e.key_name,
        actor: e.actor,
        at: e.at,
      })),
    })),
  };
}
