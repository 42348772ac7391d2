import { z } from 'zod';
import type { Scope } from '../../../auth/scopes.js';
import { errorBody } from './schemas.js';

/** Groups of operations on the reference page, in the order the page lists them. */
export const TAGS = [
  { name: 'Users', description: 'Submitting users for analysis' },
  { name: 'Profiles', description: 'Profiles and timelines built from what users wrote' },
  { name: 'Projects', description: 'Projects and their pipelines' },
  { name: 'Privacy', description: "A user's data: erasure, suppression, export; the audit trail (docs/privacy.md)" },
  { name: 'Segments', description: 'Segments, their rules and their members' },
  { name: 'Labels', description: "A project's own labels, taught from examples (docs/labels.md)" },
  { name: 'Webhooks', description: 'Webhooks and their deliveries' },
  { name: 'Webhook operations', description: 'Secret rotation, recovery, test events and resends' },
  { name: 'API keys', description: "The tenant's own keys, their scopes and their audit trail (docs/api.md)" },
  { name: 'Operations', description: 'Probes, metrics and this reference' },
  { name: 'Admin', description: 'Tenants and API keys; these routes exist only when ADMIN_TOKEN is set' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

export interface ResponseDoc {
  description: string;
  /** The JSON body; absent for 204. */
  body?: z.ZodType;
  /** A body that is not (only) JSON: its media types (HTML, JavaScript, Prometheus text); `body` or a string. */
  contentType?: string | string[];
  headers?: z.ZodObject;
}

/**
 * What the OpenAPI document says of one route, registered with it (`router.add(…, doc)`): the
 * request schemas are the ones the route validates with (inputs.ts), the responses are the zod
 * schemas of what the use case answers (schemas.ts).
 */
export interface RouteDoc {
  operationId: string;
  summary: string;
  description?: string;
  tag: Tag;
  /** `apiKey`: `X-API-Key`; `adminToken`: `X-Admin-Token`; `none`: open. */
  auth: 'apiKey' | 'adminToken' | 'none';
  /**
   * The scope an `apiKey` route needs (null: any valid key), set by the router from the route's
   * handler (authenticated.ts), never written by hand: the document states what is enforced.
   */
  scope?: Scope | null;
  query?: z.ZodType;
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** A body that may be left out (rotate-secret reads none as `{}`). */
  bodyOptional?: boolean;
  responses: Record<number, ResponseDoc>;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid argument: `field` names the parameter or body field',
  401: 'Missing, wrong, revoked or expired credentials',
  403: 'The API key lacks the scope the operation needs (the message names it; docs/api.md "Scopes")',
  404: 'Not found, or owned by another tenant',
  409: 'Already exists, or the resource is in a state that forbids the change',
  413: 'Body over 5 MB or 100,000 JSON values',
  422: 'Idempotency key reused with another body, or a quota reached',
  429: "Too many requests (this tenant's concurrent requests, failed authentications from this address, batches in flight, recovers); see Retry-After",
  500: 'Internal error (no details)',
  503: 'Busy or unavailable for a moment (no database connection free, the database refusing sessions or away, the embedding model); see Retry-After',
};

/** The request header of the routes that replay a retry's first answer (idempotency.ts). */
export const idempotencyKey = z.object({
  'Idempotency-Key': z
    .string()
    .optional()
    .meta({ description: 'Replays the first answer for 24 h to a retry of the same request' }),
});

const retryAfter = z.object({
  'Retry-After': z.string().optional().meta({ description: 'Seconds to wait before retrying' }),
});

/** Error answers in the shared body `{"error": {"code", "message", "field"?}}`. */
export function errors(...statuses: number[]): Record<number, ResponseDoc> {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: ERROR_DESCRIPTIONS[s],
        body: errorBody,
        ...(s === 429 || s === 503 ? { headers: retryAfter } : {}),
      },
    ]),
  );
}

/**
 * A route's doc with the answers every route of its kind can give: a credential check (401, and
 * 429 once an address fails too often), a body (400, 413), a database (503) and 500.
 */
export function routeDoc(doc: RouteDoc): RouteDoc {
  const implied = [500];
  if (doc.auth !== 'none') implied.push(401, 429, 503);
  if (doc.body) implied.push(400, 413);
  const missing = implied.filter((s) => !(s in doc.responses));
  return { ...doc, responses: { ...doc.responses, ...errors(...missing) } };
}
