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
  return value.trim();
}

export function requireObject(value: unknown, field = 'body'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(field, `${field} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
