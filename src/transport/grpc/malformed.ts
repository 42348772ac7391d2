import type { sendUnaryData, ServerUnaryCall, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { AppError, invalid } from '../../errors.js';
import { toServiceError } from './errors.js';

/** What a method's decoder yields for bytes that are not a valid message of its request type, or that its preflight refused. */
class MalformedRequest {
  constructor(readonly error: AppError) {}
}

/** A check of a method's raw request bytes before they are decoded; throws an AppError to refuse them. */
export type Preflight = (bytes: Buffer) => void;

type UnaryHandler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/**
 * grpc-js answers a request it cannot decode (truncated or random bytes, an int64 beyond 2^53)
 * with INTERNAL, as if the server had failed. The fault is the client's: each method's decoder is
 * wrapped so that a malformed message reaches the handler as a marker, and the handler answers
 * INVALID_ARGUMENT without running the use case. A method's `preflight` sees the bytes first, so
 * a message that is cheap to refuse on the wire is never decoded. Every method of this service is unary.
 */
export function refusingMalformed<D extends ServiceDefinition, I extends UntypedServiceImplementation>(
  definition: D,
  impl: I,
  preflight: Partial<Record<keyof D, Preflight>> = {},
): [D, I] {
  const tolerant = Object.fromEntries(
    Object.entries(definition).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer) => {
          try {
            preflight[name]?.(bytes);
            return method.requestDeserialize(bytes);
          } catch (err) {
            return new MalformedRequest(
              err instanceof AppError
                ? err
                : invalid('request', `malformed request message: ${(err as Error).message}`),
            );
          }
        },
      },
    ]),
  ) as D;
  const guarded = Object.fromEntries(
    Object.entries(impl).map(([name, handler]) => [
      name,
      ((call, callback) => {
        if (call.request instanceof MalformedRequest) {
          callback(toServiceError(call.request.error));
          return;
        }
        (handler as UnaryHandler)(call, callback);
      }) satisfies UnaryHandler,
    ]),
  ) as I;
  return [tolerant, guarded];
}
