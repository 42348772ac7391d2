import http from 'node:http';
import type { Logger } from '../observability/logger.js';
import { scrape } from './registry.js';

export class MetricsPortInUse extends Error {}

/**
 * A worker's `GET /metrics` (the api serves it on its gateway port instead). Open, like a health
 * probe: it carries counts and latencies by route and outcome, no tenant data, and listens on
 * 127.0.0.1 unless METRICS_PORT names another interface. A port already taken stops the worker at
 * start with one sentence (as a taken PORT stops the api): a worker without its metrics would
 * otherwise run unnoticed, and one falling back to another port would not be where Prometheus looks.
 */
export async function startMetricsServer(
  address: { host: string; port: number },
  log: Logger,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
      return;
    }
    scrape().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      (err: unknown) => {
        log.error('metrics scrape failed', { err });
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new MetricsPortInUse(
              `METRICS_PORT: ${address.host}:${address.port} is in use (another worker on this host?); ` +
                'give each worker process its own METRICS_PORT, or 0 for a free port',
            )
          : err,
      ),
    );
    server.listen(address.port, address.host, resolve);
  });
  const { port } = server.address() as { port: number };
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  const url = `http://${host}:${port}/metrics`;
  log.info('metrics listening', { url });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
