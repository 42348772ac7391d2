import type { sendUnaryData, ServerUnaryCall, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { invalid } from '../../errors.js';
import { toServiceError } from './errors.js';

/** What a method's decoder yields for bytes that are not a valid message of its request type. */
class MalformedRequest {
  constructor(readonly reason: string) {}
}

type UnaryHandler = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

/**
 * grpc-js answers a request it cannot decode (truncated or random bytes, an int64 beyond 2^53)
 * with INTERNAL, as if the server had failed. The fault is the client's: each method's decoder is
 * wrapped so that a malformed message reaches the handler as a marker, and the handler answers
 * INVALID_ARGUMENT without running the use case. Every method of this service is unary.
 */
export function refusingMalformed<D extends ServiceDefinition, I extends UntypedServiceImplementation>(definition: D, impl: I): [D, I] {
  const tolerant = Object.fromEntries(
    Object.entries(definition).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer) => {
          try {
            return method.requestDeserialize(bytes);
          } catch (err) {
            return new MalformedRequest((err as Error).message);
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
          callback(toServiceError(invalid('request', `malformed request message: ${call.request.reason}`)));
          return;
        }
        (handler as UnaryHandler)(call, callback);
      }) satisfies UnaryHandler,
    ]),
  ) as I;
  return [tolerant, guarded];
}
