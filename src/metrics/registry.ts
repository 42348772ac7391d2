import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's one registry: everything `GET /metrics` shows (the api's gateway port, a worker's
 * METRICS_PORT). Names share the `profiling_` prefix; labels are bounded sets (route patterns,
 * outcomes, providers), never a tenant, user or webhook id: a label value is a time series for
 * ever, and tenants' names do not belong in an operator's dashboards.
 */
export const registry = new Registry();
export const PREFIX = 'profiling_';

// Node's own: CPU, memory, event-loop lag, GC, handles (prom-client's default set).
collectDefaultMetrics({ register: registry, prefix: PREFIX });

/** Work that must run right before a scrape is rendered (draining Temporal's buffer). */
const beforeScrape = new Set<() => void>();

export function onScrape(fn: () => void): () => void {
  beforeScrape.add(fn);
  return () => beforeScrape.delete(fn);
}

/** The Prometheus text of this process's metrics. */
export async function scrape(): Promise<{ contentType: string; body: string }> {
  for (const fn of beforeScrape) fn();
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** Latencies from a millisecond database round trip to a webhook's 10 s timeout. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// Requests (src/metrics/requests.ts subscribes them to both transports).
export const httpRequests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'HTTP requests answered, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  registers: [registry],
});
export const httpDuration = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'Time to answer an HTTP request, by route pattern and method',
  labelNames: ['route', 'method'] as const,
  buckets: SECONDS,
  registers: [registry],
});
export const grpcRequests = new Counter({
  name: `${PREFIX}grpc_requests_total`,
  help: 'gRPC calls answered, by method and status code',
  labelNames: ['method', 'code'] as const,
  registers: [registry],
});
export const grpcDuration = new Histogram({
  name: `${PREFIX}grpc_request_duration_seconds`,
  help: 'Time to answer a gRPC call, by method',
  labelNames: ['method'] as const,
  buckets: SECONDS,
  registers: [registry],
});

// Batches: accepted by the api, completed by a worker (users/identify-users.ts, temporal/activities.ts).
export const batchesAccepted = new Counter({
  name: `${PREFIX}batches_accepted_total`,
  help: 'Batches of users stored and answered 202 (replays of an idempotent request not counted)',
  registers: [registry],
});
export const batchesCompleted = new Counter({
  name: `${PREFIX}batches_completed_total`,
  help: 'Batches whose analysis completed (each with its items analysed or failed)',
  registers: [registry],
});
export const batchesFailed = new Counter({
  name: `${PREFIX}batches_failed_total`,
  help: 'Completed batches with at least one item that could not be analysed (a batch itself never fails: it is retried until it completes)',
  registers: [registry],
});
export const messagesAnalysed = new Counter({
  name: `${PREFIX}messages_analysed_total`,
  help: 'Messages analysed and folded into their user profile',
  registers: [registry],
});

// The embedder (analysis/embedder.ts), in the workers and in the api (rules with semantic conditions).
export const embedderCalls = new Counter({
  name: `${PREFIX}embedder_calls_total`,
  help: 'Calls to the embedder (a chunk of a batch, the conditions of a rule, the training of the heads), by provider and result',
  labelNames: ['provider', 'result'] as const,
  registers: [registry],
});
export const embedderCallTexts = new Histogram({
  name: `${PREFIX}embedder_call_texts`,
  help: 'Texts per embedder call',
  labelNames: ['provider'] as const,
  buckets: [1, 2, 5, 10, 25, 50, 100, 250, 1000],
  registers: [registry],
});
export const embedderDuration = new Histogram({
  name: `${PREFIX}embedder_call_duration_seconds`,
  help: 'Time from an embedder call to its vectors, queueing for a model thread included',
  labelNames: ['provider'] as const,
  buckets: SECONDS,
  registers: [registry],
});
export const embedderQueue = new Gauge({
  name: `${PREFIX}embedder_queue_depth`,
  help: 'Embedder calls of this process waiting for or running on a model',
  labelNames: ['provider'] as const,
  registers: [registry],
});

// Webhooks (webhooks/deliver-attempt.ts).
export const deliveries = new Counter({
  name: `${PREFIX}webhook_deliveries_total`,
  help: 'Delivery attempts recorded, by outcome: success, failed (sent; no 2xx or no answer), not_sent (the webhook inactive or unsubscribed)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
export const deliveryDuration = new Histogram({
  name: `${PREFIX}webhook_delivery_duration_seconds`,
  help: "Time of a sent delivery attempt's HTTP request, by outcome",
  labelNames: ['outcome'] as const,
  buckets: SECONDS,
  registers: [registry],
});
export const webhooksDisabled = new Counter({
  name: `${PREFIX}webhooks_auto_disabled_total`,
  help: 'Webhooks deactivated by the service, by reason: gone (410) or failing (5 days of failed deliveries)',
  labelNames: ['reason'] as const,
  registers: [registry],
});
