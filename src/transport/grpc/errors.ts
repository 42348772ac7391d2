import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { ErrorCode } from '../../errors.js';
import type { AppError } from '../../errors.js';
import { STATUS_DETAILS_KEY, statusDetails } from './status-details.js';

/** Exhaustive: a new error code does not compile until it has a gRPC status. */
const GRPC_STATUS: Record<ErrorCode, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  permission_denied: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  conflict: status.ABORTED,
  idempotency_key_reused: status.FAILED_PRECONDITION,
  payload_too_large: status.RESOURCE_EXHAUSTED,
  resource_exhausted: status.RESOURCE_EXHAUSTED,
  quota_exceeded: status.RESOURCE_EXHAUSTED,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

/**
 * The answer to a failed call: the status, our own `error-code` / `error-field` / `retry-after`
 * metadata (simple to read from any client), and the same facts as the standard
 * `grpc-status-details-bin` trailer (status-details.ts).
 */
export function toServiceError(err: AppError): Partial<ServiceError> {
  const code = GRPC_STATUS[err.code];
  const details = err.field ? `${err.message} (field: ${err.field})` : err.message;
  const metadata = new Metadata();
  metadata.set('error-code', err.code);
  if (err.field) metadata.set('error-field', err.field);
  if (err.retryAfterSeconds) metadata.set('retry-after', String(err.retryAfterSeconds));
  metadata.set(STATUS_DETAILS_KEY, statusDetails(code, details, err));
  return { code, details, metadata };
}
