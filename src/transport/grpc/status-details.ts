import type { status } from '@grpc/grpc-js';
import type { Any } from '../../../gen/google/protobuf/any.js';
import { BadRequest, RetryInfo } from '../../../gen/google/rpc/error_details.js';
import { Status } from '../../../gen/google/rpc/status.js';
import type { AppError } from '../../errors.js';

/** The trailer gRPC clients read the rich error model from (grpc-go's `status.FromError`, grpcurl, ...). */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

const pack = (typeName: string, value: Uint8Array): Any => ({
  typeUrl: `type.googleapis.com/${typeName}`,
  value: Buffer.from(value),
});

/**
 * The standard error model for an error answered with `code` and `message`: `google.rpc.Status`
 * with `BadRequest` naming the field of an invalid argument, and `RetryInfo` when the error tells
 * the client how long to wait (rate limits, an unavailable database). The same facts as the
 * `error-field` and `retry-after` metadata, in the form gRPC libraries decode.
 */
export function statusDetails(code: status, message: string, err: AppError): Buffer {
  const details: Any[] = [];
  if (err.code === 'invalid_argument' && err.field) {
    const violation = { field: err.field, description: err.message };
    details.push(pack('google.rpc.BadRequest', BadRequest.encode({ fieldViolations: [violation] }).finish()));
  }
  if (err.retryAfterSeconds) {
    const seconds = Math.floor(err.retryAfterSeconds);
    // Clamped: rounding 0.9999999999 s up would give 1e9 nanos, which google.protobuf.Duration forbids.
    const nanos = Math.min(999_999_999, Math.round((err.retryAfterSeconds - seconds) * 1e9));
    details.push(pack('google.rpc.RetryInfo', RetryInfo.encode({ retryDelay: { seconds, nanos } }).finish()));
  }
  return Buffer.from(Status.encode({ code, message, details }).finish());
}
