import type { Logger } from '../observability/logger.js';
import { countRequest, type RequestDone } from '../metrics/requests.js';

export type { RequestDone };

/** The route of an HTTP request no route matched: one label, however many paths are probed. */
export const UNMATCHED = 'unmatched';

/**
 * Health probes and metric scrapes, answered every few seconds for as long as the service runs:
 * logged at `debug` while they succeed, so the `info` stream is the traffic of clients. A failing
 * probe is logged at `info` like any request (it is what an operator looks for).
 */
const PROBES = new Set([
  'http /healthz',
  'http /readyz',
  'http /metrics',
  'grpc /grpc.health.v1.Health/Check',
  'grpc /grpc.health.v1.Health/Watch',
]);

function succeeded(status: number | string): boolean {
  return typeof status === 'number' ? status < 400 : status === 'OK';
}

/**
 * Ends a request of either transport: writes its one access line and counts it in the request
 * metrics. Each transport calls it exactly once per request.
 */
export function finishRequest(log: Logger, done: RequestDone, client: string | undefined): void {
  const quiet = PROBES.has(`${done.transport} ${done.route}`) && succeeded(done.status);
  log[quiet ? 'debug' : 'info']('request', {
    transport: done.transport,
    method: done.method,
    route: done.route,
    status: done.status,
    duration_ms: Math.round(done.seconds * 10_000) / 10,
    request_id: done.requestId,
    client,
  });
  try {
    countRequest(done);
  } catch (err) {
    // A failing metric must not fail the request that is already answered.
    log.error('request metrics failed', { err });
  }
}
