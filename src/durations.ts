/** Durations in settings: `30s`, `5m`, and lists of them such as the webhook retry schedule. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "1m,5m,30m,2h,24h" into milliseconds. Throws on anything else. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) {
    throw new Error('must be a comma-separated list of durations such as 1m,5m,30m,2h,24h');
  }
  if (parts.length > 20) throw new Error('at most 20 retries');
  return parts.map(parseDuration);
}

/** Parses one duration such as "30s" or "5d" into milliseconds. Throws on anything else. */
export function parseDuration(p: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(p.trim());
  if (!m) throw new Error(`"${p}" is not a duration (use ms, s, m, h or d, e.g. 30s)`);
  return Number(m[1]) * UNIT_MS[m[2]];
}
