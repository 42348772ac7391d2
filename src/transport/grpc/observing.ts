import { Metadata, ServerInterceptingCall, status, type ServerInterceptor } from '@grpc/grpc-js';
import type { AppContext } from '../../app.js';
import { finishRequest } from '../access-log.js';
import { acceptRequestId, withRequestId } from '../../observability/request-context.js';
import { grpcClientAddress } from '../edge.js';

const REQUEST_ID = 'x-request-id';

/**
 * The first interceptor of every call (our services, health and reflection alike): takes the
 * call's `x-request-id` (or makes one, as the gateway does), runs everything downstream in that
 * request's context so the call's log lines name it, sends it back, and writes the call's one
 * access line with its status.
 *
 * The id goes back in the trailers of every answer (an error answered before any response header
 * has only trailers) and in the response headers when there are any (a successful call).
 */
export function observing(ctx: Pick<AppContext, 'log' | 'trustProxy'>): ServerInterceptor {
  return (method, next) => {
    const started = performance.now();
    let requestId: string | undefined;
    let client: string | undefined;
    let finished = false;
    const finish = (code: status) => {
      if (finished) return;
      finished = true;
      requestId ??= acceptRequestId(undefined);
      const done = {
        transport: 'grpc' as const,
        route: method.path,
        method: 'POST',
        status: status[code],
        seconds: (performance.now() - started) / 1000,
        requestId,
      };
      withRequestId(requestId, () => finishRequest(ctx.log, done, client));
    };
    const inContext = (fn: () => void) => (requestId ? withRequestId(requestId, fn) : fn());
    const call: ServerInterceptingCall = new ServerInterceptingCall(next, {
      start(startNext) {
        startNext({
          onReceiveMetadata(metadata, metadataNext) {
            const given = metadata.get(REQUEST_ID);
            requestId = acceptRequestId(given.length === 1 ? given[0] : undefined);
            // Handlers read the accepted id, never a malformed one.
            metadata.set(REQUEST_ID, requestId);
            client = grpcClientAddress(call.getPeer(), metadata, ctx.trustProxy);
            inContext(() => metadataNext(metadata));
          },
          onReceiveMessage: (message, messageNext) => inContext(() => messageNext(message)),
          // grpc-js runs a unary handler from here, or from the metadata step when an interceptor
          // held that back (authenticate.ts): either way its use case runs in the context.
          onReceiveHalfClose: (halfCloseNext) => inContext(halfCloseNext),
          onCancel() {
            // Every call ends here, after its status. One without a status from the service was
            // cancelled by the client, outlived its deadline, or was refused by grpc-js itself
            // (a message over the size limit), whose status interceptors do not see.
            const deadline = call.getDeadline();
            finish(Number(deadline) <= Date.now() ? status.DEADLINE_EXCEEDED : status.CANCELLED);
          },
        });
      },
      sendMetadata(metadata, metadataNext) {
        if (requestId) metadata.set(REQUEST_ID, requestId);
        metadataNext(metadata);
      },
      sendStatus(answer, statusNext) {
        requestId ??= acceptRequestId(undefined);
        const trailers = answer.metadata ?? new Metadata();
        trailers.set(REQUEST_ID, requestId);
        finish(answer.code);
        statusNext({ ...answer, metadata: trailers });
      },
    });
    return call;
  };
}
