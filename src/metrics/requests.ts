import type { RequestDone } from '../observability/access-log.js';
import { grpcDuration, grpcRequests, httpDuration, httpRequests } from './registry.js';

/** Counts one finished request of either transport (labels are the route pattern, never the path). */
export function countRequest(done: RequestDone): void {
  if (done.transport === 'grpc') {
    grpcRequests.inc({ method: done.route, code: String(done.status) });
    grpcDuration.observe({ method: done.route }, done.seconds);
  } else {
    httpRequests.inc({ route: done.route, method: done.method, status: String(done.status) });
    httpDuration.observe({ route: done.route, method: done.method }, done.seconds);
  }
}
