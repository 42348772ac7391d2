/**
 * The one domain error type. Codes are a closed set; each transport maps them with an
 * exhaustive table (see transport/http/errors.ts and transport/grpc/errors.ts), so adding a
 * code without mapping it does not compile.
 */
export const ERROR_CODES = [
  'invalid_argument',
  'unauthenticated',
  'permission_denied',
  'not_found',
  'already_exists',
  'failed_precondition',
  /** The resource's state forbids the request now (a secret rotation already in its overlap): HTTP 409. */
  'conflict',
  /** An Idempotency-Key already answered a different request (HTTP 422, as Stripe). */
  'idempotency_key_reused',
  'payload_too_large',
  'resource_exhausted',
  /** A count or size quota of the tenant (webhooks per pipeline, rule size, ...): HTTP 422. */
  'quota_exceeded',
  /** Too many failed authentications from one client; carries retryAfterSeconds. */
  'rate_limited',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For validation errors: the offending field, as a JSON path (`users[3].text`). */
    readonly field?: string,
    /** Seconds a client should wait (rate limits). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const invalid = (field: string, message: string) => new AppError('invalid_argument', message, field);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const quotaExceeded = (field: string, message: string) => new AppError('quota_exceeded', message, field);

/** Connection-level database failures become `unavailable` (503), not 500. */
export function isDatabaseDown(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|57P0[1-3]|08\w{3})$/.test(code)
  ) {
    return true;
  }
  const message = (err as Error | null)?.message ?? '';
  // A session killed inside a transaction surfaces as knex's failed ROLLBACK ("ROLLBACK - Client has
  // encountered a connection error and is not queryable"), which hides the original error.
  return /Knex: Timeout acquiring a connection|Connection terminated|connect ECONNREFUSED|is not queryable/.test(
    message,
  );
}
