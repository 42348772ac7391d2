import { invalid } from './errors.js';

/** Small edge validators shared by the gateway and gRPC handlers. Each names the field it rejects. */

export function requireId(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw invalid(field, `${field} must be a positive integer`);
  }
  return n;
}

export function optionalInt(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw invalid(field, `${field} must be an integer from ${min} to ${max}`);
  }
  return n;
}

export function optionalNumber(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?(\d+\.?\d*|\.\d+)$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) {
    throw invalid(field, `${field} must be a number from ${min} to ${max}`);
  }
  return n;
}

export function requireName(value: unknown, field = 'name', max = 200): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
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

export function requireObject(value: unknown, field = 'body'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(field, `${field} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
