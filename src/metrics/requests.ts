import { grpcDuration, grpcRequests, httpDuration, httpRequests } from './registry.js';

/** One finished request of either transport: what its access line and its metrics say. */
export interface RequestDone {
  transport: 'http' | 'grpc';
  /** The route pattern (`/api/v1/profiles/:user_id`) or the gRPC method path; never a raw path. */
  route: string;
  /** The HTTP method, or `POST` for gRPC calls. */
  method: string;
  /** The HTTP status code, or the gRPC status name (`OK`, `INVALID_ARGUMENT`, ...). */
  status: number | string;
  seconds: number;
  requestId: string;
}

/** The methods the gateway serves or names in `Allow`; any other is counted as `other`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Answers that say only "no such key, route or method": counted, but without a latency histogram.
 * Anyone can make them, with any method on any route shape, and each new label set of a histogram
 * is a dozen series on every scrape: an unauthenticated client must not be able to grow the page.
 */
const UNTIMED_STATUSES = new Set([401, 404, 405]);

/** Counts one finished request of either transport (labels are the route pattern, never the path). */
export function countRequest(done: RequestDone): void {
  if (done.transport === 'grpc') {
    grpcRequests.inc({ method: done.route, code: String(done.status) });
    grpcDuration.observe({ method: done.route }, done.seconds);
  } else {
    const method = KNOWN_METHODS.has(done.method) ? done.method : 'other';
    httpRequests.inc({ route: done.route, method, status: String(done.status) });
    if (!UNTIMED_STATUSES.has(Number(done.status))) httpDuration.observe({ route: done.route, method }, done.seconds);
  }
}
