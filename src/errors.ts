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

/**
 * A database fault the client should retry, with what to tell it: PostgreSQL away (connection
 * errors, class 08, shutdown 57P01-03), PostgreSQL refusing new sessions or short of a resource
 * (class 53: `too many clients`, `too many connections for role`, out of memory, disk full), or this
 * process's pool with no connection free in time while the database is healthy (busy, not down).
 */
export interface DatabaseFault {
  kind: 'down' | 'refusing' | 'busy';
  message: string;
  retryAfterSeconds: number;
}

export function databaseFault(err: unknown): DatabaseFault | undefined {
  const code = (err as { code?: string } | null)?.code;
  const message = (err as Error | null)?.message ?? '';
  const name = (err as Error | null)?.name ?? '';
  if (typeof code === 'string' && /^53\w{3}$/.test(code)) {
    return {
      kind: 'refusing',
      message: 'the database is refusing new connections (it is at its connection or resource limit); retry shortly',
      retryAfterSeconds: 5,
    };
  }
  if (name === 'KnexTimeoutError' || /Knex: Timeout acquiring a connection/.test(message)) {
    return {
      kind: 'busy',
      message: 'the service is busy: no database connection was free in time; retry shortly',
      retryAfterSeconds: 2,
    };
  }
  if (
    (typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|57P0[1-3]|08\w{3})$/.test(code)) ||
    // pg's connect timeout says only "timeout expired". A session killed inside a transaction surfaces as knex's failed ROLLBACK ("ROLLBACK - Client has
    // encountered a connection error and is not queryable"), which hides the original error.
    /Connection terminated|connect ECONNREFUSED|is not queryable|^timeout expired$/.test(message)
  ) {
    return { kind: 'down', message: 'the database is unavailable; retry shortly', retryAfterSeconds: 5 };
  }
  return undefined;
}

/** Whether a database failure is transient (retry later) rather than this request's fault. */
export function isDatabaseDown(err: unknown): boolean {
  return databaseFault(err) !== undefined;
}
