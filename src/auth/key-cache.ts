import { listenTo } from '../db/listen.js';
import type { Logger } from '../observability/logger.js';

/**
 * The channel every key revocation (the admin route's and the tenant's own, DELETE /api/v1/api-keys/{id})
 * notifies in its transaction; every api process clears its cache on it.
 */
export const REVOKED_CHANNEL = 'api_key_revoked';
const MAX_ENTRIES = 10_000;
/** How long a valid key's lookup is reused: short, and revocations apply at once anyway. */
export const KEY_CACHE_TTL_MS = 10_000;

/**
 * Valid API keys (by hash) for a few seconds, so a busy client does not cost a key lookup per
 * request. Revocation must still take effect at once in every api process: the cache only serves
 * while this process LISTENs to the revocation channel, and it is emptied on every notification
 * and whenever that connection is lost. Only hits are cached; a wrong key always reaches the database.
 */
export class KeyCache<T = number> {
  private entries = new Map<string, { value: T; at: number }>();
  private listening = false;
  // Bumped by every clear: a lookup that began before a revocation must not refill the cache after it.
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  get(hash: string, now = Date.now()): T | undefined {
    if (!this.listening) return undefined;
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    if (now - hit.at >= this.ttlMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return hit.value;
  }

  /** Call before the database lookup; pass the result to `set`. */
  begin(): number {
    return this.generation;
  }

  set(hash: string, value: T, generation: number, now = Date.now()): void {
    if (!this.listening || this.ttlMs <= 0 || generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(hash, { value, at: now });
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Serving needs a live LISTEN connection; losing it empties the cache. */
  setListening(on: boolean): void {
    this.listening = on;
    this.clear();
  }
}

/** Keeps a LISTEN connection for `cache`, reconnecting every few seconds after a loss. */
export function listenForRevocations<T>(deps: {
  databaseUrl: string;
  cache: KeyCache<T>;
  log: Logger;
  retryMs?: number;
}): {
  stop(): Promise<void>;
} {
  return listenTo({
    databaseUrl: deps.databaseUrl,
    channel: REVOKED_CHANNEL,
    onNotify: () => deps.cache.clear(),
    onUp: () => deps.cache.setListening(true),
    onDown: () => deps.cache.setListening(false),
    log: deps.log,
    whileDown: 'API key cache off',
    retryMs: deps.retryMs,
  });
}
