/** The longest a receiver's Retry-After can hold back the next attempt. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * A `Retry-After` header (RFC 9110 §10.2.3: delay-seconds or an HTTP date) as milliseconds from
 * `now`, capped at 24 h; `undefined` when absent or unreadable (the normal schedule applies).
 * A date in the past reads as 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  let ms: number;
  if (/^\d+$/.test(raw)) ms = Number(raw) * 1000;
  else {
    // Date.parse reads the IMF-fixdate, RFC 850 and asctime forms HTTP allows, but also many
    // forms it does not: accept only values that name a weekday and a GMT time, as HTTP dates do.
    if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? .*\d{2}:\d{2}:\d{2}/.test(raw)) return undefined;
    const at = Date.parse(raw);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now.getTime());
  }
  return Number.isFinite(ms) ? Math.min(ms, MAX_RETRY_AFTER_MS) : undefined;
}
