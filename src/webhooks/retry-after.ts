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
  // Any run of digits is a delay, however long: past 2^53 or Infinity it is simply over the cap.
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  // Date.parse reads the IMF-fixdate, RFC 850 and asctime forms HTTP allows, but also many
  // forms it does not: accept only values that name a weekday and a GMT time, as HTTP dates do.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? .*\d{2}:\d{2}:\d{2}/.test(raw)) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}
