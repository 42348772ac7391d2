import type { ServerResponse } from 'node:http';
import type { AppError, ErrorCode } from '../../errors.js';

/** Exhaustive: a new error code does not compile until it has an HTTP status (as grpc-gateway maps them). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  failed_precondition: 400,
  conflict: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  resource_exhausted: 429,
  quota_exceeded: 422,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

export function sendError(res: ServerResponse, err: AppError): void {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.field) body.field = err.field;
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds) headers['Retry-After'] = String(err.retryAfterSeconds);
  sendJson(res, HTTP_STATUS[err.code], { error: body }, headers);
}

/** A reply body sent as it is with its own type (the metrics' Prometheus text), not as JSON. */
export class RawBody {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  // Every answer is exactly the type it says: a browser must never sniff a JSON error into HTML.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (status === 204) {
    res.writeHead(204, headers).end();
    return;
  }
  const raw = body instanceof RawBody;
  const text = raw ? body.text : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': raw ? body.contentType : 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}
