import http from 'node:http';
import type { AppContext } from '../../app.js';
import { AppError } from '../../errors.js';
import { answerClientError } from './client-error.js';
import { clientAddress, toAppError } from '../edge.js';
import { sendError, sendJson } from './errors.js';
import { readJsonBody, Router, type Request } from './router.js';
import { addApiRoutes } from './routes-users-profiles-projects.js';
import { addOpsRoutes } from './routes-ops.js';
import { addSegmentRoutes } from './routes-segments.js';
import { addWebhookRoutes } from './routes-webhooks.js';

export function createRouter(ctx: AppContext): Router {
  const router = new Router();
  addOpsRoutes(router, ctx);
  addApiRoutes(router, ctx);
  addWebhookRoutes(router, ctx);
  addSegmentRoutes(router, ctx);
  return router;
}

/** The request target as a URL; one that cannot be parsed (`http://x%`, `//[`) is the client's error. */
function parseTarget(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://gateway');
  } catch {
    throw new AppError('invalid_argument', 'malformed request target');
  }
}

/** The thin JSON gateway: decode, call the use case, encode. */
export function createHttpServer(ctx: AppContext): http.Server {
  const router = createRouter(ctx);
  const server = http.createServer(async (req, res) => {
    const started = Date.now();
    try {
      const url = parseTarget(req.url);
      const found = router.match(req.method ?? 'GET', url.pathname);
      if (!found) throw new AppError('not_found', `no route for ${req.method} ${url.pathname}`);
      const query: Record<string, string> = {};
      for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
      let body: Promise<unknown> | undefined;
      const request: Request = {
        method: req.method ?? 'GET',
        params: found.params,
        query,
        headers: req.headers,
        path: url.pathname,
        clientAddress: clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], ctx.trustProxy),
        header: (name) => {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        json: (limits) => (body ??= readJsonBody(req, limits)),
      };
      const reply = await found.handler(request);
      sendJson(res, reply.status, reply.body, reply.headers);
    } catch (err) {
      const appErr = toAppError(err, ctx.log);
      sendError(res, appErr);
      // Drain an unread body so keep-alive connections stay usable.
      if (!req.complete) req.resume();
    } finally {
      ctx.log.debug('http', {
        method: req.method,
        path: req.url?.split('?')[0],
        status: res.statusCode,
        ms: Date.now() - started,
      });
    }
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  server.on('clientError', answerClientError);
  return server;
}
