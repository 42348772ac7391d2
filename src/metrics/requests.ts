import { onRequestDone, type RequestDone } from '../observability/requests.js';
import { grpcDuration, grpcRequests, httpDuration, httpRequests } from './registry.js';

/** Counts one finished request of either transport (labels are the route pattern, never the path). */
function countRequest(done: RequestDone): void {
  if (done.transport === 'grpc') {
    grpcRequests.inc({ method: done.route, code: String(done.status) });
    grpcDuration.observe({ method: done.route }, done.seconds);
  } else {
    httpRequests.inc({ route: done.route, method: done.method, status: String(done.status) });
    httpDuration.observe({ route: done.route, method: done.method }, done.seconds);
  }
}

let subscribed: (() => void) | undefined;

/** Once per process (the api role): requests of both transports feed the request metrics. */
export function countRequests(): void {
  subscribed ??= onRequestDone(countRequest);
}
