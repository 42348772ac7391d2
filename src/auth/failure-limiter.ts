import { isIPv6 } from 'node:net';
import type { Db } from '../db/knex.js';

export interface FailureLimiterOptions {
  /** Failed authentications a client may make at once (the bucket size). */
  limit: number;
  /** The bucket refills completely over this many milliseconds (limit / window is the steady rate). */
  windowMs: number;
  /** At most this many clients are remembered; the least recently failing one is forgotten first. */
  maxClients?: number;
  now?: () => number;
  /** Counts the same buckets in PostgreSQL, for every api process (absent: this process only). */
  db?: Db;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Counts failed authentications (wrong, malformed, revoked or missing API key, wrong admin
 * token) per client address, as a token bucket: `limit` failures may come at once, then one more
 * every `windowMs / limit`. Only failures are counted and only failures are refused, so a client
 * sending a valid key is always served, even from an address that is limited (a NAT shared with
 * a scanner must not lock out a real customer). Keys have 256 random bits, so the limiter is not
 * what makes them unguessable; it keeps scanners slow and cheap to serve.
 *
 * With `db`, the buckets hold across api processes (behind a load balancer a client's failures
 * land on all of them): each failure is one statement on its address's row. This process's own
 * bucket is asked first: it only ever counts fewer failures than the shared one, so when it
 * refuses, the shared one would too, and a scanner stopped here costs no query.
 */
/** AUTH_FAILURE_LIMIT counts failures per this window (a token comes back every window / limit). */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

export class AuthFailureLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly msPerToken: number;
  private readonly maxClients: number;
  private readonly now: () => number;

  constructor(private readonly opts: FailureLimiterOptions) {
    this.msPerToken = opts.windowMs / opts.limit;
    this.maxClients = opts.maxClients ?? 20_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Records one failure of `address`. Returns 0 while the client is within its limit (answer
   * 401), else the whole seconds until its next attempt would be within it (answer 429).
   */
  async fail(address: string | undefined): Promise<number> {
    const local = this.failHere(address);
    if (local > 0 || !this.opts.db) return local;
    // Keyed by the limit too: processes configured alike share a bucket, others keep their own.
    return this.failShared(this.opts.db, `${clientKey(address)}|${this.opts.limit}/${this.opts.windowMs}`);
  }

  private async failShared(db: Db, key: string): Promise<number> {
    // Refill by the time since the last failure, capped at the limit; take a token if there is
    // one. Two processes racing on a new address may count one failure less: a rate, not a ledger.
    const { rows } = await db.raw(
      `WITH old AS (SELECT tokens, at FROM auth_failures WHERE client = ? FOR UPDATE),
            now_tokens AS (
              SELECT LEAST(?::float8, coalesce((SELECT tokens + extract(epoch FROM now() - at) * 1000 / ?::float8 FROM old), ?::float8)) AS t
            )
       INSERT INTO auth_failures (client, tokens, at)
       SELECT ?, CASE WHEN t >= 1 THEN t - 1 ELSE t END, now() FROM now_tokens
       ON CONFLICT (client) DO UPDATE SET tokens = EXCLUDED.tokens, at = EXCLUDED.at
       RETURNING (SELECT t FROM now_tokens) AS before`,
      [key, this.opts.limit, this.msPerToken, this.opts.limit, key],
    );
    const before = Number(rows[0].before);
    if (before >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - before) * this.msPerToken) / 1000));
  }

  /** The same bucket in this process alone. */
  failHere(address: string | undefined): number {
    const now = this.now();
    const key = clientKey(address);
    this.evictIdle(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.opts.limit, at: now };
    bucket.tokens = Math.min(this.opts.limit, bucket.tokens + (now - bucket.at) / this.msPerToken);
    bucket.at = now;
    // Re-inserted so the map stays ordered by last failure: the oldest entry is the idlest.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * this.msPerToken) / 1000));
  }

  /** Clients remembered now (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  /** A bucket untouched for a whole window is full again: forgetting it changes nothing. */
  private evictIdle(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.at < this.opts.windowMs) return;
      this.buckets.delete(key);
    }
  }
}

/**
 * The unit a limit applies to: an IPv4 address, or the /64 prefix of an IPv6 address (one
 * customer network gets a whole /64, so single addresses would be free to rotate through).
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  const bare = address.split('%')[0];
  if (!isIPv6(bare)) return address;
  const [head, tail = ''] = bare.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = bare.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
