import type { AppContext } from '../../app.js';
import type { Caller } from '../../auth/api-keys.js';
import { requireScope, type Scope } from '../../auth/scopes.js';
import { authenticateCall } from '../edge.js';
import type { Handler, Reply, Request } from './router.js';
import { StreamBody } from './stream-body.js';

/** A route's handler that says the scope it needs: the router writes it into the route's OpenAPI operation. */
export type ScopedHandler = Handler & { scope: Scope | null };

/**
 * A route that needs an API key (`X-API-Key`) holding `scope` (null: any valid key): authenticated
 * once here, like gRPC's `unary()`, so each route is one line of transport around its use case, run
 * in one of the tenant's places. A key without the scope is 403 before the tenant's place or the
 * body is touched. A streamed answer keeps its place until it settles (last byte written, client
 * gone or cut), not until the handler returns it: an open stream counts against the tenant like a
 * running request.
 */
export function authenticated(
  ctx: AppContext,
  scope: Scope | null,
  fn: (caller: Caller, req: Request) => Promise<Reply>,
): ScopedHandler {
  const handler: Handler = async (req) => {
    const caller = await authenticateCall(ctx, req.clientAddress, req.header('x-api-key'));
    if (scope) requireScope(caller.scopes, scope);
    const leave = await ctx.tenantRequests.enter(caller.tenantId);
    let reply: Reply;
    try {
      reply = await fn(caller, req);
    } catch (err) {
      leave();
      throw err;
    }
    if (reply.body instanceof StreamBody) reply.body.onSettled(leave);
    else leave();
    return reply;
  };
  return Object.assign(handler, { scope });
}
