import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { AppContext } from '../../app.js';
import type { Caller } from '../../auth/api-keys.js';
import { requireScope, type Scope } from '../../auth/scopes.js';
import { authenticateCall, grpcClientAddress, toAppError } from '../edge.js';
import { authenticatedCaller } from './authenticate.js';
import { toServiceError } from './errors.js';

/**
 * Wraps a use case as a unary handler that needs `scope` (403-like PERMISSION_DENIED naming it
 * otherwise, as the gateway's routes): takes the caller the server's interceptor authenticated
 * from metadata `x-api-key` before the message was decoded (authenticate.ts), maps domain errors
 * once (errors.ts), and never leaks internals. The call runs in one of the tenant's places
 * (fairness/tenant-requests.ts), as gateway routes do. A handler served without that interceptor
 * authenticates the call itself (failures counted per peer address all the same).
 */
export function unary<Req, Res>(
  ctx: AppContext,
  /** The scope the method needs (auth/scopes.ts); null: any valid key. */
  scope: Scope | null,
  fn: (caller: Caller, req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const known = authenticatedCaller(call.metadata);
    const key = call.metadata.get('x-api-key')[0];
    (known
      ? Promise.resolve(known)
      : authenticateCall(
          ctx,
          grpcClientAddress(call.getPeer(), call.metadata, ctx.trustProxy),
          typeof key === 'string' ? key : undefined,
        )
    )
      .then((caller) => {
        if (scope) requireScope(caller.scopes, scope);
        return ctx.tenantRequests.run(caller.tenantId, () => fn(caller, call.request, call));
      })
      .then(
        (res) => callback(null, res),
        (err) => callback(toServiceError(toAppError(err, ctx.log))),
      );
  };
}
