import http from 'node:http';
import type { Socket } from 'node:net';
import type { AppContext } from '../../app.js';
import { AppError } from '../../errors.js';
import { answerClientError } from './client-error.js';
import { closeAfterAnswer, manageConnections, serverOptions } from './connections.js';
import { clientAddress, toAppError } from '../edge.js';
import { finishRequest, UNMATCHED } from '../access-log.js';
import { acceptRequestId, withRequestId } from '../../observability/request-context.js';
import { sendError, sendJson } from './errors.js';
import { logStreamEnd, sendStream, StreamBody } from './stream-body.js';
import { readJsonBody, Router, type Request } from './router.js';
import { requestPath } from './request-path.js';
import { addApiRoutes } from './routes-users-profiles-projects.js';
import { addPrivacyRoutes } from './routes-privacy.js';
import { addOpsRoutes } from './routes-ops.js';
import { addSegmentRoutes } from './routes-segments.js';
import { addLabelRoutes } from './routes-labels.js';
import { addKeyRoutes } from './routes-keys.js';
import { addWebhookRoutes } from './routes-webhooks.js';
import { addConsoleRoutes } from './routes-console.js';
import { addDocsRoutes } from './routes-docs.js';

export function createRouter(ctx: AppContext): Router {
  const router = new Router();
  addOpsRoutes(router, ctx);
  addApiRoutes(router, ctx);
  addPrivacyRoutes(router, ctx);
  addWebhookRoutes(router, ctx);
  addSegmentRoutes(router, ctx);
  addLabelRoutes(router, ctx);
  addKeyRoutes(router, ctx);
  addConsoleRoutes(router);
  // Last: the document it serves lists the routes added before it.
  addDocsRoutes(router);
  return router;
}

/** The method of a request Node's parser refused: it may not have got as far as reading one. */
const UNPARSED = 'unknown';

/** The request target as a URL; one that cannot be parsed (`http://x%`, `//[`) is the client's error. */
function parseTarget(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://gateway');
  } catch {
    throw new AppError('invalid_argument', 'malformed request target');
  }
}

/**
 * The thin JSON gateway: decode, call the use case, encode. Every request gets an id (the
 * caller's well-formed `X-Request-Id`, or a new one) sent back on every answer and named by every
 * log line written while it is handled, and ends with one access line (access-log.ts).
 */
export function createHttpServer(ctx: AppContext): http.Server {
  const router = createRouter(ctx);
  const server = http.createServer(serverOptions(ctx.config.http.requestTimeoutMs), (req, res) => {
    const requestId = acceptRequestId(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    void withRequestId(requestId, () => handle(req, res, requestId));
  });
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, requestId: string) => {
    const started = performance.now();
    const client = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], ctx.trustProxy);
    let route = UNMATCHED;
    try {
      const url = parseTarget(req.url);
      // Dot segments as sent (request-path.ts): `%2E%2E` names the user id `..`.
      const path = requestPath(req.url ?? '/', url);
      const found = router.match(req.method ?? 'GET', path);
      if (!found) throw new AppError('not_found', `no route for ${req.method} ${path}`);
      route = found.pattern;
      const query: Record<string, string> = {};
      for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
      let body: Promise<unknown> | undefined;
      const request: Request = {
        method: req.method ?? 'GET',
        params: found.params,
        query,
        headers: req.headers,
        path,
        clientAddress: client,
        header: (name) => {
          const v = req.headers[name.toLowerCase()];
          return Array.isArray(v) ? v[0] : v;
        },
        json: (limits) => (body ??= readJsonBody(req, limits)),
      };
      const reply = await found.handler(request);
      // Answered before its body arrived whole (a route that reads none, a 405): the same close as
      // a refusal's, else the body is drained without bound and the request timeout answers again.
      if (!req.complete) closeAfterAnswer(req, res);
      if (reply.body instanceof StreamBody) {
        const { sendTimeoutMs } = ctx.config.http;
        const end = await sendStream(
          res,
          { ...reply, body: reply.body },
          { head: req.method === 'HEAD', sendTimeoutMs },
        );
        logStreamEnd(ctx.log, end, route, sendTimeoutMs);
      } else sendJson(res, reply.status, reply.body, reply.headers);
    } catch (err) {
      const appErr = toAppError(err, ctx.log);
      // Refused before its body arrived whole: the client still reads the answer (connections.ts).
      if (!req.complete && !res.headersSent) closeAfterAnswer(req, res);
      sendError(res, appErr);
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const method = req.method ?? 'GET';
      finishRequest(ctx.log, { transport: 'http', route, method, status: res.statusCode, seconds, requestId }, client);
    }
  };
  manageConnections(server);
  // Requests Node's parser refused: answered with an id of their own, and logged like the others.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const requestId = acceptRequestId(undefined);
    const answered = answerClientError(err, socket, requestId);
    if (answered === undefined) return;
    const client = clientAddress(socket.remoteAddress, undefined, ctx.trustProxy);
    const done = {
      transport: 'http' as const,
      route: UNMATCHED,
      method: UNPARSED,
      status: answered,
      // Node does not say when a request it refused began: no duration to report.
      seconds: 0,
      requestId,
    };
    withRequestId(requestId, () => finishRequest(ctx.log, done, client));
  });
  return server;
}
