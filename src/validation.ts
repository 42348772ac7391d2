import { invalid } from './errors.js';

/**
 * Value checks shared by the use cases (ranges, lengths, storable text); each names the field it
 * rejects. `requireId` also reads the ids of HTTP paths, which arrive as strings.
 */

export function requireId(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw invalid(field, `${field} must be a positive integer`);
  }
  return n;
}

export function optionalInt(n: number | null | undefined, field: string, min: number, max: number): number | undefined {
  if (n === undefined || n === null) return undefined;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw invalid(field, `${field} must be an integer from ${min} to ${max}`);
  }
  return n;
}

export function optionalNumber(
  n: number | null | undefined,
  field: string,
  min: number,
  max: number,
): number | undefined {
  if (n === undefined || n === null) return undefined;
  if (!Number.isFinite(n) || n < min || n > max) {
    throw invalid(field, `${field} must be a number from ${min} to ${max}`);
  }
  return n;
}

export function requireName(value: string, field = 'name', max = 200): string {
  if (value.trim() === '' || value.length > max) {
    throw invalid(field, `${field} must be a non-empty string of at most ${max} characters`);
  }
  return requireStorable(value.trim(), field);
}

/** A UTF-16 surrogate without its pair: JSON can carry it, but it is not Unicode text. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * PostgreSQL text cannot hold NUL, and jsonb refuses the `\ud800` escape JSON.stringify writes for
 * a lone surrogate; neither means anything in a name, an id or a label, so both are refused here
 * instead of failing in the database.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

export function requireStorable(value: string, field: string): string {
  if (!isStorableText(value))
    throw invalid(field, `${field} must be Unicode text without NUL characters or unpaired surrogates`);
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A public id (erasures, API keys, their events): anything else is looked up as nothing. */
export const isUuid = (value: string): boolean => UUID.test(value);
