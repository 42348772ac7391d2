import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { ErrorCode } from '../../errors.js';
import type { AppError } from '../../errors.js';

/** Exhaustive: a new error code does not compile until it has a gRPC status. */
export const GRPC_STATUS: Record<ErrorCode, status> = {
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

export function toServiceError(err: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set('error-code', err.code);
  if (err.field) metadata.set('error-field', err.field);
  if (err.retryAfterSeconds) metadata.set('retry-after', String(err.retryAfterSeconds));
  return {
    code: GRPC_STATUS[err.code],
    details: err.field ? `${err.message} (field: ${err.field})` : err.message,
    metadata,
  };
}
