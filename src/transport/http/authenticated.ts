import type { AppContext } from '../../app.js';
import type { Caller } from '../../auth/api-keys.js';
import { authenticateCall } from '../edge.js';
import type { Handler, Reply, Request } from './router.js';

/**
 * A route that needs an API key (`X-API-Key`): authenticated once here, like gRPC's `unary()`, so
 * each route is one line of transport around its use case, run in one of the tenant's places.
 */
export function authenticated(ctx: AppContext, fn: (caller: Caller, req: Request) => Promise<Reply>): Handler {
  return async (req) => {
    const caller = await authenticateCall(ctx, req.clientAddress, req.header('x-api-key'));
    return ctx.tenantRequests.run(caller.tenantId, () => fn(caller, req));
  };
}
