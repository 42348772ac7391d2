/**
 * Strict ISO 8601 / RFC 3339 timestamps for the per-user `timestamp` extension.
 *
 * Written by hand because both obvious tools are lenient in ways that lose data silently:
 * `new Date('2026-02-31')` rolls over into March, and `new Date('2026-01-01T10:00:00')` without an
 * offset is read in the server's own time zone. Here every field is checked against the calendar
 * (leap years included) before anything is converted.
 *
 * Accepted: `YYYY-MM-DD` (midnight UTC) and `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or
 * an offset `±HH:MM` / `±HHMM`. Refused: impossible dates and times (Feb 30, 24:00, 23:59:60: a
 * JavaScript date cannot hold a leap second), date-times without an offset, anything else.
 */
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}:?\d{2}))?$/;

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The instant the text names, or a sentence saying what is wrong with it. */
export function parseStrictTimestamp(text: string): Date | string {
  const m = PATTERN.exec(text);
  if (!m)
    return 'timestamp must be an ISO 8601 date-time with an offset (2026-03-01T09:30:00Z or 2026-03-01T10:30:00+01:00) or a date (2026-03-01)';
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12) return `timestamp has no month ${mo}`;
  if (day < 1 || day > daysInMonth(year, month)) return `timestamp names a day that does not exist (${y}-${mo}-${d})`;
  if (hour > 23 || minute > 59 || second > 59) return `timestamp names a time that does not exist (${h}:${mi}:${s})`;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const [oh, om] = [Number(zone.slice(1, 3)), Number(zone.slice(-2))];
    if (oh > 23 || om > 59) return `timestamp has an impossible offset ${zone}`;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Math.floor(Number(`0.${fraction || '0'}`) * 1000);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000);
}
