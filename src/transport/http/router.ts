import type { IncomingMessage } from 'node:http';
import { AppError, invalid } from '../../errors.js';
import { createJsonBudget, type JsonLimits } from './json-budget.js';
import type { RouteDoc } from './openapi/route-doc.js';
import type { Scope } from '../../auth/scopes.js';
import { MAX_REQUEST_BYTES as MAX_BODY_BYTES } from '../limits.js';

export interface Request {
  method: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** The path as requested, without the query (for links to the next page). */
  path: string;
  /** The peer address of the connection (what failed-authentication limits are keyed by). */
  clientAddress: string | undefined;
  header(name: string): string | undefined;
  /**
   * Parsed JSON body; 400 on malformed JSON, 413 over 5 MB or 100,000 values; `limits` refuses
   * more while the body is read (json-budget.ts). The first call's limits apply.
   */
  json(limits?: JsonLimits): Promise<unknown>;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: Request) => Promise<Reply>;

interface Route {
  method: string;
  /** As registered (`/api/v1/profiles/:user_id`): the label metrics and logs use, never the raw path. */
  pattern: string;
  parts: string[];
  handler: Handler;
  /** What the OpenAPI document says of the route (openapi/document.ts); a route without one fails its test. */
  doc?: RouteDoc;
}

export interface RouteEntry {
  method: string;
  pattern: string;
  doc?: RouteDoc;
}

export class Router {
  private routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, doc?: RouteDoc): this {
    // The scope an authenticated() handler checks is the one its document states: one source.
    const scope = (handler as { scope?: Scope | null }).scope;
    const documented = doc && scope !== undefined ? { ...doc, scope } : doc;
    this.routes.push({ method, pattern, parts: pattern.split('/').filter(Boolean), handler, doc: documented });
    return this;
  }

  /** Every route, in the order added: what the OpenAPI document is made from. */
  list(): RouteEntry[] {
    return this.routes.map(({ method, pattern, doc }) => ({ method, pattern, doc }));
  }

  /**
   * Finds the route. A known path asked with another method gets a handler answering 405 with
   * `Allow` (RFC 9110) in the error body every answer uses, so a client learns the path is right.
   */
  match(
    method: string,
    path: string,
  ): { handler: Handler; params: Record<string, string>; pattern: string } | undefined {
    const segments = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (!answers(route.method, method) || route.parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const p = route.parts[i];
        let s: string;
        try {
          s = decodeURIComponent(segments[i]);
        } catch {
          return undefined;
        }
        if (p.startsWith(':')) params[p.slice(1)] = s;
        else ok = p === s;
      }
      if (ok) return { handler: route.handler, params, pattern: route.pattern };
    }
    const allowed = this.routes.filter((r) => !answers(r.method, method) && sameShape(r.parts, segments));
    if (allowed.length === 0) return undefined;
    const allow = [...new Set(allowed.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))].join(', ');
    return {
      pattern: allowed[0].pattern,
      params: {},
      handler: async () => ({
        status: 405,
        headers: { Allow: allow },
        body: { error: { code: 'method_not_allowed', message: `${method} is not allowed here; allowed: ${allow}` } },
      }),
    };
  }
}

/**
 * Whether a route registered for `registered` answers `asked`: a GET route answers HEAD too (RFC 9110
 * 9.3.2), with the same status and headers; Node sends no body in answer to HEAD.
 */
function answers(registered: string, asked: string): boolean {
  return registered === asked || (asked === 'HEAD' && registered === 'GET');
}

/**
 * Whether a registered pattern matches these raw path segments, whatever the method. A segment that
 * does not decode matches nothing, parameter or not, as in `match`: such a path is 404 for every
 * method, never 405 for some.
 */
function sameShape(parts: string[], segments: string[]): boolean {
  if (parts.length !== segments.length) return false;
  return parts.every((p, i) => {
    try {
      const s = decodeURIComponent(segments[i]);
      return p.startsWith(':') || p === s;
    } catch {
      return false;
    }
  });
}

export function readJsonBody(req: IncomingMessage, limits?: JsonLimits): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      reject(new AppError('payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`));
      return;
    }
    const type = req.headers['content-type'];
    if (type && !/^application\/(.+\+)?json\b/i.test(type)) {
      req.resume();
      reject(invalid('Content-Type', 'Content-Type must be application/json'));
      return;
    }
    const chunks: Buffer[] = [];
    const budget = createJsonBudget(limits);
    let size = 0;
    let failed = false;
    // Refused while reading: the rest is read and dropped (keep-alive), never parsed.
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      const over =
        size > MAX_BODY_BYTES
          ? new AppError('payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`)
          : budget.write(chunk);
      if (over) {
        failed = true;
        chunks.length = 0;
        reject(over);
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
    req.on('end', () => {
      if (failed) return;
      const raw = Buffer.concat(chunks);
      if (raw.length === 0) {
        resolve(undefined);
        return;
      }
      try {
        // fatal: invalid UTF-8 is a client error, not something to silently repair.
        resolve(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw)));
      } catch {
        reject(invalid('body', 'request body is not valid JSON (UTF-8)'));
      }
    });
  });
}
