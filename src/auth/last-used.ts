import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';

/** What it needs of a key as the cache keeps it (api-keys.ts KnownKey); `lastUsedAt` it updates. */
export interface UsedKey {
  caller: { keyId?: string; keyPrefix?: string };
  lastUsedAt: Date | null;
}

/** How fresh a key's `last_used_at` is kept: the time is right to within this (docs/api.md). */
export const LAST_USED_PRECISION_S = 60;

/**
 * Keeps each key's `last_used_at` without a write per request: a use writes only when the time the
 * process knows for the key (read with the key, or written by this process) is older than
 * LAST_USED_PRECISION_S, so a busy key costs one UPDATE a minute per api process, and the UPDATE
 * itself is conditional, so processes racing on one key change the row once. The write is not
 * awaited by the request: a slow or failed one is logged and tried again at a later use.
 */
export class LastUsed {
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  used(key: UsedKey, now = new Date()): void {
    const last = key.lastUsedAt?.getTime();
    if (last !== undefined && now.getTime() - last < LAST_USED_PRECISION_S * 1000) return;
    const before = key.lastUsedAt;
    key.lastUsedAt = now;
    this.db
      .raw(
        `UPDATE api_keys SET last_used_at = now()
          WHERE uid = ? AND (last_used_at IS NULL OR last_used_at < now() - make_interval(secs => ?))`,
        [key.caller.keyId ?? null, LAST_USED_PRECISION_S],
      )
      .catch((err: unknown) => {
        key.lastUsedAt = before;
        this.log.warn('could not record an API key use', { err, key: key.caller.keyPrefix });
      });
  }
}
