import { AppError } from '../errors.js';

/**
 * What an API key may do (docs/api.md "Scopes"). Each operation of both transports names the one
 * scope it needs (its route or RPC declares it, and the OpenAPI document lists it per operation);
 * a key without it is answered 403 / PERMISSION_DENIED naming the scope. A `:write` scope holds its
 * `:read` (Stripe's restricted keys read the same way). Reading the projects and pipelines a key can
 * reach, and its own description, needs no scope: every key may know where it can work.
 */
export const SCOPES = [
  'ingest',
  'profiles:read',
  'segments:read',
  'segments:write',
  'webhooks:read',
  'webhooks:write',
  'labels:read',
  'labels:write',
  'privacy',
  'projects',
  'keys',
] as const;

export type Scope = (typeof SCOPES)[number];

/** What each scope is for, in the words the docs, the OpenAPI document and the console use. */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  ingest: 'submit batches of users and read their outcomes',
  'profiles:read': 'read profiles and timelines',
  'segments:read': 'read segments and their members',
  'segments:write': 'create, change, deploy and delete segments (and read them)',
  'webhooks:read': 'read webhooks and their deliveries',
  'webhooks:write': 'create, change and delete webhooks, rotate secrets, resend and recover (and read them)',
  'labels:read': 'read custom labels and try them on texts',
  'labels:write': 'teach, correct and delete custom labels (and read them)',
  privacy: 'erase, export and suppress users, read the erasure trail, set message retention',
  projects: 'create and rename projects, create pipelines',
  keys: 'create, list and revoke API keys (never wider than the acting key) and read their audit trail',
};

const HELD_BY: Partial<Record<Scope, Scope>> = {
  'segments:read': 'segments:write',
  'webhooks:read': 'webhooks:write',
  'labels:read': 'labels:write',
};

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `held` may do what `needed` allows. */
export function holdsScope(held: readonly Scope[], needed: Scope): boolean {
  const wider = HELD_BY[needed];
  return held.includes(needed) || (wider !== undefined && held.includes(wider));
}

/** 403 / PERMISSION_DENIED naming the scope a key lacks. */
export function requireScope(held: readonly Scope[], needed: Scope): void {
  if (!holdsScope(held, needed)) {
    throw new AppError('permission_denied', `this API key lacks the scope "${needed}"`, 'scope');
  }
}
