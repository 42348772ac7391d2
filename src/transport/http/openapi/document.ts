import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import type { RouteEntry } from '../router.js';
import { SCOPE_MEANINGS, SCOPES } from '../../../auth/scopes.js';
import { errors, TAGS, type ResponseDoc } from './route-doc.js';

/**
 * Path parameters by name, as the routes check them (path-refs.ts, requireId). A pattern naming
 * one that is not here fails to render, so a new parameter cannot go undocumented.
 */
const PATH_PARAMS: Record<string, z.ZodType> = {
  project_id: z.int().min(1),
  pipeline_id: z.int().min(1),
  webhook_id: z.int().min(1),
  delivery_id: z.int().min(1),
  segment_id: z.string().meta({ description: 'The segment id (a slug)' }),
  name: z.string().meta({ description: "The label's name (a slug)" }),
  user_id: z.string().meta({ description: "The user's id in the caller's system" }),
  source_id: z.int().min(1),
  erasure_id: z.string().meta({ description: 'The erasure id (a UUID)' }),
  key_id: z.string().meta({ description: 'The API key id (a UUID)' }),
  file: z.string().meta({ description: 'A file of swagger-ui-dist' }),
};

/** The document's version: the gateway's paths carry v1. */
const API_VERSION = '1.0.0';

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

/** `/projects/:project_id/…` → `/projects/{project_id}/…` */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function response(r: ResponseDoc) {
  const types = typeof r.contentType === 'string' ? [r.contentType] : r.contentType;
  const content = types
    ? Object.fromEntries(types.map((t) => [t, { schema: r.body ?? z.string() }]))
    : r.body
      ? { 'application/json': { schema: r.body } }
      : undefined;
  return { description: r.description, ...(content && { content }), ...(r.headers && { headers: r.headers }) };
}

/**
 * The OpenAPI 3.1 document of the gateway, from the routes themselves: each route's doc carries
 * the zod schemas the route validates its input with and the schemas of its answers. A route
 * registered without a doc is left out, and the contract test (document.test.ts) fails on it.
 */
export function createOpenApiDocument(routes: RouteEntry[], version = API_VERSION) {
  const paths: ZodOpenApiPathsObject = {};
  for (const { method, pattern, doc } of routes) {
    if (!doc) continue;
    const names = [...pattern.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const path = names.length
      ? z.object(
          Object.fromEntries(
            names.map((n) => {
              const schema = PATH_PARAMS[n];
              if (!schema) throw new Error(`path parameter ${n} of ${pattern} has no schema in PATH_PARAMS`);
              return [n, schema];
            }),
          ),
        )
      : undefined;
    const operation: ZodOpenApiOperationObject = {
      operationId: doc.operationId,
      summary: doc.summary,
      ...(doc.description && { description: doc.description }),
      tags: [doc.tag],
      // OpenAPI 3.1 lets an apiKey requirement list role names: the one scope the key needs.
      security: doc.auth === 'none' ? [] : [{ [doc.auth]: doc.scope ? [doc.scope] : [] }],
      ...(doc.auth === 'apiKey' && { 'x-required-scope': doc.scope ?? null }),
      requestParams: {
        ...(path && { path }),
        // zod-openapi reads the object inside a query schema's transform; the cast only widens its input type.
        ...(doc.query && { query: doc.query as z.ZodType<unknown, Record<string, unknown>> }),
        ...(doc.headers && { header: doc.headers }),
      },
      ...(doc.body && {
        requestBody: { required: !doc.bodyOptional, content: { 'application/json': { schema: doc.body } } },
      }),
      responses: Object.fromEntries(
        Object.entries({ ...(doc.scope && !(403 in doc.responses) ? errors(403) : {}), ...doc.responses })
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([status, r]) => [
            status,
            response({ ...r, description: r.description || STATUS_TEXT[Number(status)] }),
          ]),
      ),
    };
    const item = (paths[openApiPath(pattern)] ??= {});
    (item as Record<string, ZodOpenApiOperationObject>)[method.toLowerCase()] = operation;
  }
  return openAnswers(
    createDocument({
      openapi: '3.1.0',
      info: {
        title: 'Semantic profiling service: JSON gateway',
        version,
        description:
          'Users, profiles, segments and webhooks over JSON. Every error answers `{"error": {"code", "message", "field"?}}`; ' +
          'a known path asked with another method answers 405 with `Allow`. The same service speaks gRPC ' +
          '(proto/profiling/v1). Decisions where the interface is silent: docs/api.md.',
      },
      tags: TAGS.map((t) => ({ ...t })),
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description:
              'A tenant API key (`sps_…`). Each operation lists the one scope it needs in its security requirement ' +
              '(and in `x-required-scope`; none: any key); a key without it is answered 403. Scopes: ' +
              SCOPES.map((s) => `\`${s}\` (${SCOPE_MEANINGS[s]})`).join('; ') +
              '. A `:write` scope holds its `:read`.',
          },
          adminToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Admin-Token',
            description: 'ADMIN_TOKEN; without it the admin routes do not exist',
          },
        },
      },
      paths,
    }),
  );
}

/**
 * Answers are published open: zod renders an answer's object with `additionalProperties: false`,
 * and a client validating against that would break on the next additive field (extensions are
 * additive, and answers gain fields). Each such place is marked `x-closed: true` instead: today's
 * answers have no other field, which the e2e contract check (test/support/contract.ts) enforces
 * so that a field added to an answer without its schema is caught here.
 */
function openAnswers<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(openAnswers);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (o.additionalProperties === false) {
      delete o.additionalProperties;
      o['x-closed'] = true;
    }
    Object.values(o).forEach(openAnswers);
  }
  return node;
}
