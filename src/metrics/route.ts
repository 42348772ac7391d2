import type { Router } from '../transport/http/router.js';
import { RawBody } from '../transport/http/errors.js';
import { routeDoc } from '../transport/http/openapi/route-doc.js';
import { scrape } from './registry.js';

/**
 * The api's `GET /metrics`, on the gateway port. Open, like /healthz: it holds counts and
 * latencies by route pattern and outcome, never a tenant, user or key; where the gateway port is
 * public, keep /metrics off the balancer's routes (docs/operations.md).
 */
export function addMetricsRoute(router: Router): void {
  router.add(
    'GET',
    '/metrics',
    async () => {
      const { contentType, body } = await scrape();
      return { status: 200, body: new RawBody(contentType, body) };
    },
    routeDoc({
      operationId: 'metrics',
      summary: 'Prometheus metrics of this api process',
      tag: 'Operations',
      auth: 'none',
      responses: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain' } },
    }),
  );
}
