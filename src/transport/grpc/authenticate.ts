import { ServerInterceptingCall, type Metadata, type ServerInterceptor } from '@grpc/grpc-js';
import type { AppContext } from '../../app.js';
import type { Caller } from '../../auth/api-keys.js';
import { authenticateCall, grpcClientAddress, toAppError } from '../edge.js';
import { toServiceError } from './errors.js';

/** The callers authenticated by the interceptor, by the metadata object the handler receives. */
const callers = new WeakMap<Metadata, Caller>();

/** The caller the interceptor authenticated for this call's metadata, if it did. */
export function authenticatedCaller(metadata: Metadata): Caller | undefined {
  return callers.get(metadata);
}

/**
 * Authenticates every call to our services from its metadata (`x-api-key`) before a byte of its
 * message is read. grpc-js only reads and decodes the request once the handler asks for it, which
 * happens after the metadata passes this interceptor: a call without a valid key is answered
 * UNAUTHENTICATED (or RESOURCE_EXHAUSTED once its address is over the failure limit) and its
 * message is never decoded, so a stranger cannot make the server build millions of objects.
 * Health and reflection (other packages) pass untouched: they need no key.
 */
export function authenticating(ctx: AppContext, servicePrefix: string): ServerInterceptor {
  return (method, next) => {
    if (!method.path.startsWith(servicePrefix)) return new ServerInterceptingCall(next);
    const call: ServerInterceptingCall = new ServerInterceptingCall(next, {
      start(startNext) {
        startNext({
          onReceiveMetadata(metadata, metadataNext) {
            const key = metadata.get('x-api-key')[0];
            authenticateCall(
              ctx,
              grpcClientAddress(call.getPeer(), metadata, ctx.trustProxy),
              typeof key === 'string' ? key : undefined,
            ).then(
              (caller) => {
                callers.set(metadata, caller);
                metadataNext(metadata);
              },
              (err: unknown) => {
                const { code, details, metadata: trailers } = toServiceError(toAppError(err, ctx.log));
                call.sendStatus({ code: code!, details: details!, metadata: trailers ?? null });
              },
            );
          },
        });
      },
    });
    return call;
  };
}
