/**
 * Property-based fuzzing of every JSON gateway route with hostile bodies, query strings, path
 * parameters and request targets. Every answer must be a 4xx with the service's JSON error shape,
 * or a success that is correct for what was sent; a refused request must leave the database as it
 * was; the api process must survive (same pid, /healthz answers).
 */
import http from 'node:http';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { HTTP_STATUS } from '../../src/transport/http/errors.js';
import { call, newTenant, stack, waitForBatch, type Tenant } from '../support/api.js';
import { checkAnswer } from '../support/contract.js';
import {
  dbFingerprint,
  hostileValue,
  makeDeliveryFixture,
  makeSegmentFixture,
  makeLabelFixture,
  fixtureExamples,
  makeWebhookFixture,
  nastyString,
  poisoned,
  RawJson,
  toJsonText,
  expectWorkerWroteOnlyAcceptedBatches,
  expectProfilePage,
  expectRecoverAnswerWithin,
} from '../support/fuzz.js';

const SEED = 6_2026;
/** Runs per property; together about 1,600 requests, well under a minute on 2 cores. */
const RUNS = { bodies: 700, targets: 700, rawTargets: 150 };

interface Answer {
  status: number;
  text: string;
  json: any;
  contentType: string | null;
  allow: string | null;
}

interface Sent {
  method: string;
  path: string;
  body?: Buffer;
  headers: Record<string, string>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(req: Sent): Promise<Answer> {
  const url = new URL(stack().gatewayUrl);
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          const header = (name: string) => {
            const v = res.headers[name];
            return v === undefined ? null : String(v);
          };
          resolve({
            status: res.statusCode ?? 0,
            text,
            json,
            contentType: header('content-type'),
            allow: header('allow'),
          });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(req.body);
  });
}

let tried = 0;
let refused = 0;
let succeeded = 0;
/** Successes judged by their route's check (the request surely reached it); the others by their shape. */
let checked = 0;
/** The same, by route (`GET /api/v1/profiles`): every route must have at least one. */
const checkedByRoute = new Map<string, number>();
/** Source ids of the submissions the gateway accepted (202), for the drain check at the end. */
const acceptedBatches = new Set<number>();
let db: pg.Client;
/** The fingerprint after the last refused request: nothing the worker does in the background changes it. */
let known: Record<string, string> | undefined;

/** Sends one fuzzed request; fails on a 5xx, a malformed error or a refused request that wrote. Returns the answer when 2xx. */
async function probe(req: Sent): Promise<Answer | undefined> {
  tried++;
  const before = (known ??= await dbFingerprint(db));
  const res = await send(req);
  const shown = `${req.method} ${req.path.slice(0, 300)} body=${req.body?.subarray(0, 300).toString('utf8')} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, shown).toBeLessThan(500);
  // Every answer, refused or not, is one the OpenAPI document lists (test/support/contract.ts).
  await checkAnswer(stack().gatewayUrl, {
    ...res,
    method: req.method,
    path: req.path,
    body: res.json ?? (res.text || undefined),
  });
  if (res.status >= 200 && res.status < 300) {
    succeeded++;
    known = undefined;
    return res;
  }
  refused++;
  expectJsonError(res, shown);
  known = await dbFingerprint(db);
  expect(known, `database changed by a refused request: ${shown}`).toEqual(before);
  return undefined;
}

/** Node's parser refusals (answered by transport/http/client-error.ts) use two statuses the error table has no code for. */
const PARSER_STATUS: Record<number, string> = { 431: 'payload_too_large', 408: 'invalid_argument' };

function expectJsonError(res: Answer, shown: string): void {
  expect(res.status, shown).toBeGreaterThanOrEqual(400);
  expect(res.json?.error, shown).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  // A known path asked with another method: the router's 405, outside the domain's codes.
  if (res.status === 405) {
    expect(res.json.error.code, shown).toBe('method_not_allowed');
    return;
  }
  expect(ERROR_CODES, shown).toContain(res.json.error.code);
  const expected =
    PARSER_STATUS[res.status] === res.json.error.code
      ? res.status
      : HTTP_STATUS[res.json.error.code as keyof typeof HTTP_STATUS];
  expect(res.status, shown).toBe(expected);
}

/**
 * Fixture ids; a webhook or segment deleted by a fuzzed DELETE is made again. Project A
 * (`projectId`) holds no users, so the erasures aimed at it remove nothing the drain check
 * counts on; project B holds the submitted users.
 */
interface Fixtures extends Tenant {
  projectB: number;
  webhookId: number;
  segmentId: string;
  /** A custom label of project A, trained. */
  labelName: string;
  /** An erasure of project A (of a user id it never saw), which suppressed the id there. */
  erasureId: string;
  /** A batch submitted to project B. */
  sourceId: number;
  /** Keys of tenants made for the revocation route to revoke (a fuzzed revocation of `key` would end the run). */
  spareKeys: string[];
  /** A delivery of the fixture webhook (its test event), for the resend route. */
  deliveryId: number;
  /** A key of the tenant made for the revoke route (a fuzzed revocation of `key` would end the run). */
  keyId: string;
}
let fx: Fixtures;

/** The fixture webhook, and a delivery of it for the resend route. */
async function makeWebhook(): Promise<number> {
  const id = await makeWebhookFixture(fx);
  fx.deliveryId = await makeDeliveryFixture(fx, id);
  return id;
}
const makeSegment = () => makeSegmentFixture(fx);
const makeLabel = () => makeLabelFixture(fx);
async function makeKey(): Promise<string> {
  const made = await call('POST', '/api/v1/api-keys', {
    key: fx.key,
    body: { name: 'fuzz spare', scopes: ['ingest'] },
  });
  expect(made.status).toBe(201);
  return made.body.id;
}
const keyArb = () =>
  fc.record(
    {
      name: either(text),
      scopes: either(fc.subarray(['ingest', 'profiles:read', 'segments:write', 'keys'], { minLength: 1 })),
      projects: either(fc.oneof(fc.constant(null), fc.constant([1]), fc.array(fc.integer(), { maxLength: 3 }))),
      expires_at: either(
        fc.oneof(
          fc.constant(null),
          fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
        ),
      ),
    },
    { requiredKeys: [] },
  );

/** A path parameter: the real fixture id, or something hostile. */
type Param = { real: true } | { real: false; value: string; raw: boolean };
const paramArb = (realWeight: number): fc.Arbitrary<Param> =>
  fc.oneof(
    { weight: realWeight, arbitrary: fc.constant({ real: true as const }) },
    {
      weight: 4,
      arbitrary: fc.record({
        real: fc.constant(false as const),
        value: fc.oneof(nastyString, poisoned(fc.constantFrom('1', 'u1', 'fixture-1'))),
        raw: fc.boolean(),
      }),
    },
  );

/** Percent-encodes like a client would; `raw` writes the text as is where HTTP allows it (so %ZZ and ../ arrive verbatim). */
function encodePart(value: string, raw: boolean): string {
  if (raw && /^[\x21-\x7e]*$/.test(value)) return value;
  try {
    return encodeURIComponent(value);
  } catch {
    // A lone surrogate: send the bytes of its (invalid) UTF-8 form.
    return [...Buffer.from(value.replace(/[\uD800-\uDFFF]/g, '\u0000'), 'utf8')]
      .map((b) => `%${b.toString(16).padStart(2, '0')}`)
      .join('')
      .replaceAll('%00', '%ED%A0%80');
  }
}

/** The user of the fixture batch (project B): its profile, timeline and export can be found. */
const FIXTURE_USER = 'q0';

type ParamName =
  | 'project_id'
  | 'pipeline_id'
  | 'webhook_id'
  | 'segment_id'
  | 'user_id'
  | 'delivery_id'
  | 'erasure_id'
  | 'source_id'
  | 'name'
  | 'key_id'
  | 'file';
const realParam = (name: ParamName): string =>
  ({
    project_id: String(fx.projectId),
    pipeline_id: String(fx.pipelineId),
    webhook_id: String(fx.webhookId),
    segment_id: fx.segmentId,
    user_id: FIXTURE_USER,
    delivery_id: String(fx.deliveryId),
    erasure_id: fx.erasureId,
    source_id: String(fx.sourceId),
    name: fx.labelName,
    key_id: fx.keyId,
    // The reference page's; the console's is the route's own (`real`).
    file: 'init.js',
  })[name];

interface Route {
  method: string;
  pattern: string;
  query?: Record<string, fc.Arbitrary<string>>;
  body?: () => fc.Arbitrary<unknown>;
  admin?: boolean;
  /** Real values of path parameters where the route's differ from the fixture's (realParam). */
  real?: Partial<Record<ParamName, string>>;
  /** Extra checks of a success, given what was sent. */
  check?: (
    res: Answer,
    sent: { params: Record<string, string>; body: any; query: URLSearchParams },
  ) => void | Promise<void>;
}

const WH = '/projects/:project_id/pipelines/:pipeline_id/webhooks';
const SG = '/projects/:project_id/pipelines/:pipeline_id/segments';
const LB = '/api/v1/projects/:project_id/labels';

/** A mostly valid value with a hostile one now and then, so both refusals and successes happen. */
const either = <T>(valid: fc.Arbitrary<T>, weight = 3) =>
  fc.oneof({ weight, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
const text = poisoned(fc.string({ minLength: 1, maxLength: 12 }));
const intText = (min: number, max: number) => fc.integer({ min, max }).map(String);
const queryValue = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { weight: 2, arbitrary: valid },
    { weight: 2, arbitrary: nastyString },
    { weight: 1, arbitrary: poisoned(valid) },
  );

const webhookBody = () =>
  fc.record(
    {
      url: either(
        fc.constantFrom('https://hooks.example.com/a', 'https://example.org:8443/h?x=1', 'https://[2606:4700::1111]/h'),
      ),
      secret: either(poisoned(fc.string({ minLength: 8, maxLength: 40 }))),
      events: either(fc.subarray(['user_added', 'user_removed'], { minLength: 1 })),
      is_active: either(fc.boolean()),
    },
    { requiredKeys: [] },
  );

const ruleArb = fc.oneof(
  fc.record({
    field: poisoned(fc.constantFrom('churn_risk_score', 'avg_sentiment', 'attributes.plan', 'topic_scores.pricing')),
    op: fc.constantFrom('>=', '<', '==', 'in'),
    value: fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), poisoned(fc.constant('pro')), hostileValue),
  }),
  fc.record(
    { semantic: either(text), min_similarity: either(fc.double({ min: 0, max: 1, noNaN: true })) },
    { requiredKeys: ['semantic'] },
  ),
  fc.record({ all: fc.array(hostileValue, { maxLength: 3 }) }),
  hostileValue,
);

const segmentBody = () =>
  fc.record(
    {
      id: either(fc.stringMatching(/^[a-z0-9_-]{1,20}$/), 1),
      name: either(text),
      description: either(poisoned(fc.string({ maxLength: 50 }))),
      rule: ruleArb,
    },
    { requiredKeys: [] },
  );

/** Examples: mostly a valid set (texts unique to each draw), now and then hostile. */
const examplesArb = either(fc.uuid().map((u) => fixtureExamples(`drawn ${u}`)));
const labelBody = () =>
  fc.record(
    {
      name: either(fc.stringMatching(/^[a-z0-9_-]{1,20}$/), 1),
      description: either(poisoned(fc.string({ maxLength: 50 }))),
      examples: examplesArb,
    },
    { requiredKeys: ['examples'] },
  );

const usersBody = () =>
  fc.record(
    {
      project_id: either(fc.constant(fx.projectB)),
      source_label: either(text, 1),
      users: either(
        fc.array(
          fc.record(
            {
              user_id: either(text),
              text: either(
                poisoned(fc.constantFrom('I love it', 'Too expensive, I will cancel', 'Support never answers')),
              ),
              attributes: either(
                fc.dictionary(
                  poisoned(fc.constantFrom('plan', 'seats', 'country')),
                  fc.oneof(poisoned(fc.constantFrom('pro', 'free')), fc.integer(), fc.boolean()),
                ),
                2,
              ),
              timestamp: either(
                fc
                  .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
                  .map((d) => d.toISOString()),
                2,
              ),
            },
            { requiredKeys: ['user_id', 'text'] },
          ),
          { minLength: 1, maxLength: 3 },
        ),
      ),
    },
    { requiredKeys: [] },
  );

const nameBody = () => fc.record({ name: either(text) }, { requiredKeys: [] });
const projectBody = () =>
  fc.record(
    {
      name: either(text),
      message_retention_days: either(fc.oneof(fc.integer({ min: 1, max: 36_500 }), fc.constant(null))),
    },
    { requiredKeys: [] },
  );

const isInt = (v: unknown) => Number.isSafeInteger(v);
/** A route's path with these (decoded) parameters: what a delete's check reads back. */
const pathOf = (pattern: string, params: Record<string, string>) =>
  pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name]));

const ROUTES: Route[] = [
  { method: 'GET', pattern: '/healthz', check: (res) => expect(res.json).toEqual({ status: 'ok' }) },
  {
    method: 'GET',
    pattern: '/readyz',
    check: (res) => {
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('ready');
    },
  },
  {
    method: 'GET',
    pattern: '/metrics',
    check: (res) => {
      expect(res.contentType).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/^profiling_http_requests_total\{/m);
    },
  },
  {
    method: 'GET',
    pattern: '/openapi.json',
    check: (res) =>
      expect(res.json).toMatchObject({ openapi: '3.1.0', paths: { '/api/v1/users': expect.any(Object) } }),
  },
  { method: 'GET', pattern: '/docs', check: (res) => expect(res.text).toContain('/docs/init.js') },
  {
    method: 'GET',
    pattern: '/docs/:file',
    check: (res) => {
      expect(res.contentType).toMatch(/^text\/javascript/);
      expect(res.text).toContain('SwaggerUIBundle');
    },
  },
  { method: 'GET', pattern: '/console', check: (res) => expect(res.text).toContain('/console/app.js') },
  {
    method: 'GET',
    pattern: '/console/:file',
    real: { file: 'app.js' },
    check: (res) => {
      expect(res.contentType).toMatch(/^text\/javascript/);
      expect(res.text.length).toBeGreaterThan(1_000);
    },
  },
  {
    method: 'POST',
    pattern: '/admin/v1/api-keys/revoke',
    admin: true,
    body: () => fc.record({ api_key: either(fc.constantFrom(...fx.spareKeys)) }, { requiredKeys: [] }),
    check: async (res, sent) => {
      expect(sent.body.api_key.startsWith(res.json.prefix)).toBe(true);
      expect(isInt(res.json.tenant_id)).toBe(true);
      // Refused from the next request on.
      expect((await call('GET', '/api/v1/projects', { key: sent.body.api_key })).status).toBe(401);
    },
  },
  {
    method: 'POST',
    pattern: '/admin/v1/tenants',
    admin: true,
    body: nameBody,
    check: (res) => {
      expect(isInt(res.json.tenant_id)).toBe(true);
      expect(res.json.api_key).toMatch(/^sps_[A-Za-z0-9_-]{43}$/);
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/users',
    body: usersBody,
    check: async (res, sent) => {
      expect(res.status).toBe(202);
      expect(res.json.accepted).toBe(sent.body.users.length);
      const { rows } = await db.query('SELECT project_id, user_count FROM sources WHERE id = $1', [res.json.source_id]);
      expect(rows).toEqual([{ project_id: String(fx.projectB), user_count: sent.body.users.length }]);
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/batches/:source_id',
    query: { project_id: queryValue(fc.constant('B')) },
    check: async (res, sent) => {
      const sourceId = Number(sent.params.source_id);
      expect(res.json).toMatchObject({ source_id: sourceId, project_id: fx.projectB });
      const { rows } = await db.query('SELECT user_count FROM sources WHERE id = $1', [sourceId]);
      expect(res.json.accepted).toBe(rows[0].user_count);
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/profiles',
    query: {
      project_id: queryValue(fc.constant('B')),
      limit: queryValue(intText(1, 100)),
      offset: queryValue(intText(0, 50)),
      churn_risk_gte: queryValue(fc.double({ min: 0, max: 1, noNaN: true }).map(String)),
      churn_risk_lte: queryValue(fc.double({ min: 0, max: 1, noNaN: true }).map(String)),
      sentiment_trend: queryValue(fc.constantFrom('improving', 'stable', 'declining')),
      min_messages: queryValue(intText(0, 5)),
    },
    check: (res, sent) => {
      const q = (k: string) => sent.query.get(k) || undefined;
      const num = (k: string) => (q(k) === undefined ? undefined : Number(q(k)));
      expectProfilePage(
        {
          total: res.json.total,
          users: res.json.users.map((u: any) => ({
            churn: u.aggregates.churn_risk_score,
            trend: u.aggregates.sentiment_trend,
            messages: u.aggregates.message_count,
          })),
        },
        {
          limit: num('limit') ?? 20,
          offset: num('offset') ?? 0,
          after: q('after'),
          gte: num('churn_risk_gte'),
          lte: num('churn_risk_lte'),
          trend: q('sentiment_trend'),
          minMessages: num('min_messages'),
        },
      );
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/profiles/:user_id',
    query: { project_id: queryValue(fc.constant('B')) },
    check: (res, sent) => expect(res.json.user_id).toBe(sent.params.user_id),
  },
  {
    method: 'GET',
    pattern: '/api/v1/profiles/:user_id/timeline',
    query: {
      project_id: queryValue(fc.constant('B')),
      limit: queryValue(intText(1, 1000)),
      offset: queryValue(intText(0, 10)),
    },
    check: (res, sent) => {
      expect(res.json.user_id).toBe(sent.params.user_id);
      expect(Array.isArray(res.json.timeline)).toBe(true);
    },
  },
  {
    method: 'DELETE',
    pattern: '/api/v1/profiles/:user_id',
    query: {
      project_id: queryValue(fc.constant('A')),
      suppress: queryValue(fc.constantFrom('true', 'false')),
    },
    check: (res, sent) => {
      expect(res.status).toBe(202);
      expect(res.json).toMatchObject({
        kind: 'erasure',
        state: 'completed',
        project_id: fx.projectId,
        suppressed: sent.query.get('suppress') === 'true',
        // Project A never held a user.
        counts: { batch_items: 0, messages: 0, memberships: 0, events: 0, profiles: 0, user_removed_events: 0 },
      });
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/profiles/:user_id/export',
    query: { project_id: queryValue(fc.constant('B')) },
    check: (res, sent) => {
      expect(res.contentType).toBe('application/json; charset=utf-8');
      expect(res.json).toMatchObject({ user_id: sent.params.user_id, project_id: fx.projectB });
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/erasures/:erasure_id',
    check: (res) => expect(res.json).toMatchObject({ id: fx.erasureId, project_id: fx.projectId, kind: 'erasure' }),
  },
  {
    method: 'GET',
    pattern: '/api/v1/erasures',
    query: {
      project_id: queryValue(fc.constant('A')),
      user_id: queryValue(fc.constantFrom('no-such-user', 'someone')),
      kind: queryValue(fc.constantFrom('erasure', 'retention')),
      limit: queryValue(intText(1, 100)),
      offset: queryValue(intText(0, 10)),
    },
    check: async (res, sent) => {
      const q = (k: string) => sent.query.get(k) || undefined;
      const { rows } = await db.query('SELECT count(*)::int AS n FROM erasures WHERE project_id = $1', [fx.projectId]);
      const limit = Number(q('limit') ?? 20);
      expect(res.json.erasures.length).toBeLessThanOrEqual(limit);
      // Unfiltered, the page is exactly the audit trail's slice.
      if (!q('user_id') && !q('kind'))
        expect(res.json.erasures.length).toBe(Math.min(limit, Math.max(0, rows[0].n - Number(q('offset') ?? 0))));
      for (const e of res.json.erasures) {
        expect(e.project_id).toBe(fx.projectId);
        if (q('kind')) expect(e.kind).toBe(q('kind'));
      }
    },
  },
  {
    method: 'GET',
    pattern: '/api/v1/suppressions',
    query: {
      project_id: queryValue(fc.constant('A')),
      limit: queryValue(intText(1, 1000)),
      offset: queryValue(intText(0, 10)),
    },
    check: async (res, sent) => {
      const q = (k: string) => sent.query.get(k) || undefined;
      const { rows } = await db.query('SELECT count(*)::int AS n FROM suppressions WHERE project_id = $1', [
        fx.projectId,
      ]);
      const limit = Number(q('limit') ?? 100);
      expect(res.json.suppressions.length).toBe(Math.min(limit, Math.max(0, rows[0].n - Number(q('offset') ?? 0))));
    },
  },
  {
    method: 'DELETE',
    pattern: '/api/v1/suppressions/:user_id',
    query: { project_id: queryValue(fc.constant('A')) },
    // Lifted: lifting again finds nothing.
    check: async (res, sent) => {
      expect(res.status).toBe(204);
      const again = await call(
        'DELETE',
        `/api/v1/suppressions/${encodeURIComponent(sent.params.user_id)}?project_id=${fx.projectId}`,
        { key: fx.key },
      );
      expect(again.status).toBe(404);
    },
  },
  {
    method: 'POST',
    pattern: '/api/v1/projects',
    body: projectBody,
    check: (res, sent) =>
      expect(res.json).toMatchObject({
        id: expect.any(Number),
        name: sent.body.name.trim(),
        message_retention_days: sent.body.message_retention_days ?? null,
      }),
  },
  {
    method: 'GET',
    pattern: '/api/v1/projects',
    check: (res) => expect(res.json.projects.map((p: any) => p.id)).toContain(fx.projectId),
  },
  {
    method: 'GET',
    pattern: '/api/v1/projects/:project_id',
    check: (res) => expect(res.json.id).toBe(fx.projectId),
  },
  {
    method: 'PUT',
    pattern: '/api/v1/projects/:project_id',
    body: projectBody,
    check: (res, sent) => {
      expect(res.json.id).toBe(fx.projectId);
      if (sent.body.name !== undefined) expect(res.json.name).toBe(sent.body.name.trim());
      if (sent.body.message_retention_days !== undefined)
        expect(res.json.message_retention_days).toBe(sent.body.message_retention_days);
    },
  },
  {
    method: 'POST',
    pattern: '/projects/:project_id/pipelines',
    body: nameBody,
    check: (res, sent) => expect(res.json).toMatchObject({ project_id: fx.projectId, name: sent.body.name.trim() }),
  },
  {
    method: 'GET',
    pattern: '/projects/:project_id/pipelines',
    check: (res) => expect(res.json.pipelines.map((p: any) => p.id)).toContain(fx.pipelineId),
  },
  {
    method: 'POST',
    pattern: WH,
    body: webhookBody,
    check: (res, sent) => {
      expect(res.json).toMatchObject({
        pipeline_id: fx.pipelineId,
        is_active: true,
        url: new URL(sent.body.url).toString(),
      });
      expect(Object.keys(res.json).sort()).toEqual([
        'created_at',
        'disabled_reason',
        'events',
        'id',
        'is_active',
        'pipeline_id',
        'previous_secret_expires_at',
        'segments',
        'updated_at',
        'url',
      ]);
    },
  },
  { method: 'GET', pattern: WH, check: (res) => expect(res.json.map((w: any) => w.id)).toContain(fx.webhookId) },
  { method: 'GET', pattern: `${WH}/:webhook_id`, check: (res) => expect(res.json.id).toBe(fx.webhookId) },
  {
    method: 'PUT',
    pattern: `${WH}/:webhook_id`,
    body: webhookBody,
    check: (res, sent) => {
      expect(res.json.id).toBe(fx.webhookId);
      if (sent.body.url !== undefined) expect(res.json.url).toBe(new URL(sent.body.url).toString());
      if (sent.body.is_active !== undefined) expect(res.json.is_active).toBe(sent.body.is_active);
      expect(res.json).not.toHaveProperty('secret');
    },
  },
  {
    method: 'DELETE',
    pattern: `${WH}/:webhook_id`,
    check: async (res, sent) =>
      expect((await call('GET', pathOf(`${WH}/:webhook_id`, sent.params), { key: fx.key })).status).toBe(404),
  },
  {
    method: 'GET',
    pattern: `${WH}/:webhook_id/deliveries`,
    query: {
      limit: queryValue(intText(1, 200)),
      status: queryValue(fc.constantFrom('success', 'failed')),
      event_id: queryValue(intText(1, 1_000_000)),
      before: queryValue(intText(1, 1_000_000)),
    },
    // Test events sent by the fuzzing itself may have left delivery rows: they must match the query.
    check: (res, sent) => {
      expect(Array.isArray(res.json)).toBe(true);
      expect(res.json.length).toBeLessThanOrEqual(Number(sent.query.get('limit') || 50));
      for (const d of res.json) {
        expect(d.webhook_id).toBe(fx.webhookId);
        if (sent.query.get('status')) expect(d.status).toBe(sent.query.get('status'));
        if (sent.query.get('event_id')) expect(d.event_id).toBe(Number(sent.query.get('event_id')));
        if (sent.query.get('before')) expect(d.id).toBeLessThan(Number(sent.query.get('before')));
      }
    },
  },
  {
    method: 'POST',
    pattern: `${WH}/:webhook_id/rotate-secret`,
    body: () =>
      fc.record(
        {
          secret: either(poisoned(fc.string({ minLength: 8, maxLength: 40 }))),
          overlap_seconds: either(fc.integer({ min: 0, max: 604_800 })),
        },
        { requiredKeys: [] },
      ),
    check: async (res, sent) => {
      expect(res.status).toBe(200);
      expect(res.json.webhook.id).toBe(fx.webhookId);
      if (sent.body?.secret !== undefined) expect(res.json.secret).toBe(sent.body.secret);
      else expect(res.json.secret).toMatch(/^whsec_/);
      if (sent.body?.overlap_seconds === 0) expect(res.json.webhook.previous_secret_expires_at).toBeNull();
      // A second rotation during the overlap is refused (409): end it, so the next one is judged too.
      const hook = `/projects/${fx.projectId}/pipelines/${fx.pipelineId}/webhooks/${fx.webhookId}`;
      const ended = await call('POST', `${hook}/end-secret-overlap`, { key: fx.key });
      expect(ended.status).toBe(200);
      expect(ended.body.previous_secret_expires_at).toBeNull();
    },
  },
  {
    method: 'POST',
    pattern: `${WH}/:webhook_id/end-secret-overlap`,
    check: (res) => {
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ id: fx.webhookId, previous_secret_expires_at: null });
    },
  },
  {
    method: 'POST',
    pattern: `${WH}/:webhook_id/recover`,
    body: () =>
      fc.record({ since: either(fc.constantFrom('2026-01-01T00:00:00Z', '2025-06-30', '2026-11-01T10:00:00+02:00')) }),
    check: async (res, sent) => {
      expect(res.status).toBe(202);
      await expectRecoverAnswerWithin(db, Number(sent.params.webhook_id), new Date(sent.body.since), {
        events: res.json.events,
        alreadyRecovering: res.json.already_recovering,
      });
    },
  },
  {
    method: 'POST',
    pattern: `${WH}/:webhook_id/test`,
    check: (res) => {
      expect(res.status).toBe(202);
      expect(res.json.event_id).toEqual(expect.any(Number));
    },
  },
  {
    method: 'POST',
    pattern: `${WH}/:webhook_id/deliveries/:delivery_id/resend`,
    check: (res) => {
      expect(res.status).toBe(202);
      expect(res.json.workflow_id).toEqual(expect.any(String));
    },
  },
  {
    method: 'POST',
    pattern: SG,
    body: segmentBody,
    check: (res, sent) =>
      expect(res.json).toMatchObject({ pipeline_id: fx.pipelineId, status: 'draft', name: sent.body.name.trim() }),
  },
  {
    method: 'GET',
    pattern: SG,
    check: (res) => expect(res.json.segments.map((s: any) => s.id)).toContain(fx.segmentId),
  },
  { method: 'GET', pattern: `${SG}/:segment_id`, check: (res) => expect(res.json.id).toBe(fx.segmentId) },
  {
    method: 'PUT',
    pattern: `${SG}/:segment_id`,
    body: segmentBody,
    check: (res) => expect(res.json.id).toBe(fx.segmentId),
  },
  { method: 'POST', pattern: `${SG}/:segment_id/deploy`, check: (res) => expect(res.json.status).toBe('deployed') },
  { method: 'POST', pattern: `${SG}/:segment_id/undeploy`, check: (res) => expect(res.json.status).toBe('draft') },
  {
    method: 'DELETE',
    pattern: `${SG}/:segment_id`,
    check: async (res, sent) =>
      expect((await call('GET', pathOf(`${SG}/:segment_id`, sent.params), { key: fx.key })).status).toBe(404),
  },
  {
    method: 'POST',
    pattern: LB,
    body: labelBody,
    check: (res, sent) => expect(res.json).toMatchObject({ name: sent.body.name, state: 'training', version: 1 }),
  },
  {
    method: 'GET',
    pattern: LB,
    check: (res) => expect(res.json.labels.map((l: any) => l.name)).toContain(fx.labelName),
  },
  { method: 'GET', pattern: `${LB}/:name`, check: (res) => expect(res.json.name).toBe(fx.labelName) },
  {
    method: 'PUT',
    pattern: `${LB}/:name`,
    body: () => fc.record({ description: either(text), examples: examplesArb }, { requiredKeys: ['examples'] }),
    check: (res, sent) => expect(res.json).toMatchObject({ name: fx.labelName, examples: sent.body.examples }),
  },
  {
    method: 'POST',
    pattern: `${LB}/:name/examples`,
    body: () =>
      fc.record(
        { examples: either(fc.uuid().map((u) => [{ text: `added ${u}`, match: true }])) },
        { requiredKeys: [] },
      ),
    check: (res, sent) => expect(res.json.examples).toEqual(expect.arrayContaining(sent.body.examples)),
  },
  {
    method: 'POST',
    pattern: `${LB}/:name/classify`,
    body: () => fc.record({ texts: either(fc.array(text, { minLength: 1, maxLength: 5 })) }, { requiredKeys: [] }),
    check: (res, sent) => expect(res.json.results).toHaveLength(sent.body.texts.length),
  },
  {
    method: 'DELETE',
    pattern: `${LB}/:name`,
    check: async (res, sent) =>
      expect((await call('GET', pathOf(`${LB}/:name`, sent.params), { key: fx.key })).status).toBe(404),
  },
  {
    method: 'POST',
    pattern: '/api/v1/api-keys',
    body: keyArb,
    check: (res, sent) =>
      expect(res.json).toMatchObject({ name: sent.body.name.trim(), api_key: expect.stringMatching(/^sps_/) }),
  },
  {
    method: 'GET',
    pattern: '/api/v1/api-keys',
    check: (res) => expect(res.json.keys.map((k: any) => k.id)).toContain(fx.keyId),
  },
  {
    method: 'GET',
    pattern: '/api/v1/api-keys/current',
    check: (res) => expect(res.json.prefix).toBe(fx.key.slice(0, 8)),
  },
  {
    method: 'GET',
    pattern: '/api/v1/api-keys/events',
    query: { limit: queryValue(intText(1, 1000)), before: queryValue(fc.uuid()) },
    check: (res) => expect(Array.isArray(res.json.events)).toBe(true),
  },
  {
    method: 'DELETE',
    pattern: '/api/v1/api-keys/:key_id',
    check: async (res, sent) =>
      expect(
        ((await call('GET', '/api/v1/api-keys', { key: fx.key })).body.keys as { id: string }[]).map((k) => k.id),
      ).not.toContain(sent.params.key_id),
  },
  {
    method: 'GET',
    pattern: `${SG}/:segment_id/users`,
    query: { limit: queryValue(intText(1, 1000)), offset: queryValue(intText(0, 10)) },
    check: (res) => expect(res.json).toEqual({ users: [], total: 0 }),
  },
];

function paramNames(pattern: string): ParamName[] {
  return pattern
    .split('/')
    .filter((p) => p.startsWith(':'))
    .map((p) => p.slice(1) as ParamName);
}

/** A raw parameter that can change which route matches: empty, a separator, or a dot segment URL parsing resolves. */
// An empty parameter reshapes the path however it is sent: the router drops empty segments, so
// `…/labels/` is the list route (seen once the label routes came: GET …/labels/:name with '').
const reshapes = (p: Param) =>
  !p.real && (p.value === '' || (p.raw && (/[/?#\\]/.test(p.value) || /^(\.|%2e){1,2}$/i.test(p.value))));

/**
 * Builds the path; returns it, the decoded parameters the server should see, and whether it
 * surely reaches `route` (a reshaping raw parameter may land on another route or none).
 */
function buildPath(route: Route, params: Param[]): { path: string; decoded: Record<string, string>; exact: boolean } {
  const names = paramNames(route.pattern);
  const decoded: Record<string, string> = {};
  const exact = !params.slice(0, names.length).some(reshapes);
  let i = 0;
  const path = route.pattern
    .split('/')
    .map((part) => {
      if (!part.startsWith(':')) return part;
      const name = names[i];
      const p = params[i++];
      const value = p.real ? (route.real?.[name] ?? realParam(name)) : p.value;
      decoded[name] = value;
      return p.real ? encodeURIComponent(value) : encodePart(value, p.raw);
    })
    .join('/');
  return { path, decoded, exact };
}

/** Query strings: the route's own keys (valid or hostile), unknown keys, duplicates, raw percent signs. */
function queryArb(route: Route): fc.Arbitrary<string> {
  const known = Object.entries(route.query ?? {}).map(([k, v]) =>
    fc.option(fc.tuple(fc.constant(k), v, fc.boolean()), { nil: undefined }),
  );
  const extra = fc.array(fc.tuple(nastyString, nastyString, fc.boolean()), { maxLength: 2 });
  return fc.tuple(fc.tuple(...known), extra).map(([k, e]) => {
    const pairs = [...k.filter((x) => x !== undefined), ...e] as [string, string, boolean][];
    return pairs
      .map(([key, value, raw]) => {
        // The placeholders 'A' and 'B' stand for the fixture project and the one that holds users.
        const placeholder = key === 'project_id' && (value === 'A' || value === 'B');
        const v = placeholder ? String(value === 'A' ? fx.projectId : fx.projectB) : value;
        return `${encodePart(key, raw)}=${encodePart(v, raw)}`;
      })
      .join('&');
  });
}

const INVALID_UTF8 = [
  [0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x00],
];

/** Wraps JSON text in transport-level damage: truncation, garbage, invalid UTF-8, BOM, random bytes, nothing. */
const damageArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant((b: Buffer) => b) },
  { weight: 1, arbitrary: fc.nat().map((n) => (b: Buffer) => b.subarray(0, b.length ? n % b.length : 0)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('}', ',', '{"a":', "'x'", 'NaN', ' // c', '\u0000', '][')
      .map((g) => (b: Buffer) => Buffer.concat([b, Buffer.from(g)])),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([n, bad]) => (b: Buffer) => {
      const at = b.length ? n % b.length : 0;
      return Buffer.concat([b.subarray(0, at), Buffer.from(bad), b.subarray(at)]);
    }),
  },
  { weight: 1, arbitrary: fc.constant((b: Buffer) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b])) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => () => Buffer.from(bytes)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', 'null', '[]', '"x"', '1e309', 'NaN', 'true', '{"__proto__":{"a":1}}')
      .map((t) => () => Buffer.from(t)),
  },
);

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-16',
      'application/merge-patch+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ),
  },
);

describe('gateway fuzzing', () => {
  let apiPid: number;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: stack().databaseUrl });
    await db.connect();
    const t = await newTenant('fuzz');
    const b = await call('POST', '/api/v1/projects', { key: t.key, body: { name: 'fuzz users' } });
    fx = {
      ...t,
      projectB: b.body.id,
      webhookId: 0,
      segmentId: '',
      labelName: '',
      erasureId: '',
      sourceId: 0,
      spareKeys: [],
      deliveryId: 0,
      keyId: '',
    };
    for (let i = 0; i < 3; i++) {
      const spare = await call('POST', '/admin/v1/tenants', {
        body: { name: `fuzz spare ${i}` },
        headers: { 'X-Admin-Token': stack().adminToken },
      });
      fx.spareKeys.push(spare.body.api_key);
    }
    const batch = await call('POST', '/api/v1/users', {
      key: t.key,
      body: { project_id: fx.projectB, users: [{ user_id: FIXTURE_USER, text: 'Fine so far.' }] },
    });
    fx.sourceId = batch.body.source_id;
    acceptedBatches.add(fx.sourceId);
    // A suppression in project A for a fuzzed lift to find.
    const erased = await call('DELETE', `/api/v1/profiles/${FIXTURE_USER}?project_id=${t.projectId}&suppress=true`, {
      key: t.key,
    });
    fx.erasureId = erased.body.id;
    fx.webhookId = await makeWebhook();
    fx.segmentId = await makeSegment();
    fx.labelName = await makeLabel();
    fx.keyId = await makeKey();
    apiPid = ((await (await fetch(`${stack().controlUrl}/pids`)).json()) as { api: number }).api;
  });

  afterAll(async () => {
    console.log(
      `gateway fuzz: ${tried} inputs tried (${refused} refused with a JSON 4xx, ${succeeded} successes, ${checked} of them checked for content by their route), seed ${SEED}`,
    );
    agent.destroy();
    await db?.end();
  });

  /**
   * Puts back what a fuzzed request may have taken, for a route's valid request to find: the
   * profile of project B, the suppression of project A, the webhook and the segment.
   */
  async function restoreFixtures() {
    const profile = `/api/v1/profiles/${FIXTURE_USER}?project_id=${fx.projectB}`;
    if ((await call('GET', profile, { key: fx.key })).status === 404) {
      const batch = await call('POST', '/api/v1/users', {
        key: fx.key,
        body: { project_id: fx.projectB, users: [{ user_id: FIXTURE_USER, text: 'Fine so far.' }] },
      });
      acceptedBatches.add(batch.body.source_id);
      await waitForBatch(batch.body.source_id);
    }
    await call('DELETE', `/api/v1/profiles/${FIXTURE_USER}?project_id=${fx.projectId}&suppress=true`, {
      key: fx.key,
    });
    const base = `/projects/${fx.projectId}/pipelines/${fx.pipelineId}`;
    if ((await call('GET', `${base}/webhooks/${fx.webhookId}`, { key: fx.key })).status === 404)
      fx.webhookId = await makeWebhook();
    if ((await call('GET', `${base}/segments/${fx.segmentId}`, { key: fx.key })).status === 404)
      fx.segmentId = await makeSegment();
    if ((await call('GET', `/api/v1/projects/${fx.projectId}/labels/${fx.labelName}`, { key: fx.key })).status === 404)
      fx.labelName = await makeLabel();
    // What these wrote is not a refused request's doing.
    known = undefined;
  }

  /** Whether the fixture key is still listed (not revoked by a fuzzed DELETE). */
  async function keyAlive() {
    const keys = (await call('GET', '/api/v1/api-keys', { key: fx.key })).body.keys as { id: string }[];
    return keys.some((k) => k.id === fx.keyId);
  }

  async function expectAlive() {
    const health = await send({ method: 'GET', path: '/healthz', headers: {} });
    expect(health).toMatchObject({ status: 200, json: { status: 'ok' } });
    const pids = (await (await fetch(`${stack().controlUrl}/pids`)).json()) as { api: number };
    expect(pids.api, 'the api process was restarted: it crashed').toBe(apiPid);
  }

  /**
   * Runs the route's success check when the request surely reached that route (otherwise only the
   * shape), then re-creates a fixture a fuzzed DELETE removed.
   */
  async function afterSuccess(
    route: Route,
    exact: boolean,
    res: Answer,
    sent: { params: Record<string, string>; body: any; query: URLSearchParams },
  ) {
    if (res.status === 202 && typeof res.json?.source_id === 'number') acceptedBatches.add(res.json.source_id);
    if (exact && route.check) {
      await route.check(res, sent);
      checked++;
      const name = `${route.method} ${route.pattern}`;
      checkedByRoute.set(name, (checkedByRoute.get(name) ?? 0) + 1);
    } else {
      const text = !!res.contentType && !res.contentType.startsWith('application/json') && res.text.length > 0;
      expect(res.status === 204 || res.json !== undefined || text, res.text.slice(0, 200)).toBe(true);
    }
    if (route.method === 'DELETE') {
      // An erasure answers its audit row; the other deletes nothing.
      expect(res.status).toBe(route.pattern === '/api/v1/profiles/:user_id' ? 202 : 204);
      const base = `/projects/${fx.projectId}/pipelines/${fx.pipelineId}`;
      if ((await call('GET', `${base}/webhooks/${fx.webhookId}`, { key: fx.key })).status === 404)
        fx.webhookId = await makeWebhook();
      if ((await call('GET', `${base}/segments/${fx.segmentId}`, { key: fx.key })).status === 404)
        fx.segmentId = await makeSegment();
      if (
        (await call('GET', `/api/v1/projects/${fx.projectId}/labels/${fx.labelName}`, { key: fx.key })).status === 404
      )
        fx.labelName = await makeLabel();
      if (!(await keyAlive())) fx.keyId = await makeKey();
    }
  }

  it('survives hostile JSON bodies on every route that reads one', async () => {
    const withBody = ROUTES.filter((r) => r.body);
    const arb = fc.integer({ min: 0, max: withBody.length - 1 }).chain((i) => {
      const route = withBody[i];
      const value = fc.oneof({ weight: 4, arbitrary: route.body!() }, { weight: 1, arbitrary: hostileValue });
      const extra = fc.dictionary(nastyString, hostileValue, { maxKeys: 3 });
      return fc.record({
        route: fc.constant(i),
        // Path parameters stay real most of the time so the body is what gets judged.
        params: fc.array(paramArb(36), { minLength: 4, maxLength: 4 }),
        value,
        extra: fc.option(extra, { freq: 4 }),
        damage: damageArb,
        contentType: contentTypeArb,
      });
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ route: i, params, value, extra, damage, contentType }) => {
        const route = withBody[i];
        const { path, decoded, exact } = buildPath(route, params);
        const bodyValue =
          extra && value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson)
            ? { ...extra, ...value }
            : value;
        const json = Buffer.from(toJsonText(bodyValue), 'utf8');
        const body = damage(json);
        const headers: Record<string, string> = { 'X-API-Key': fx.key };
        if (contentType) headers['Content-Type'] = contentType;
        if (route.admin) headers['X-Admin-Token'] = stack().adminToken;
        const res = await probe({ method: route.method, path, body, headers });
        if (res) {
          // The server accepted it, so it is JSON (TextDecoder drops a BOM, as the server's does).
          const parsed: unknown = JSON.parse(new TextDecoder().decode(body) || 'null');
          await afterSuccess(route, exact, res, { params: decoded, body: parsed, query: new URLSearchParams() });
        }
      }),
      { seed: SEED, numRuns: RUNS.bodies, endOnFailure: true },
    );
    await expectAlive();
  });

  it('survives hostile path parameters and query strings on every route', async () => {
    const arb = fc.integer({ min: 0, max: ROUTES.length - 1 }).chain((i) =>
      fc.record({
        route: fc.constant(i),
        params: fc.array(paramArb(3), { minLength: 4, maxLength: 4 }),
        query: queryArb(ROUTES[i]),
      }),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ route: i, params, query }) => {
        const route = ROUTES[i];
        const { path, decoded, exact } = buildPath(route, params);
        const headers: Record<string, string> = { 'X-API-Key': fx.key };
        let body: Buffer | undefined;
        // Routes with a body get a valid minimal one, so the path and query are what gets judged.
        if (route.body) {
          body = Buffer.from(
            JSON.stringify(
              route.pattern.endsWith('users')
                ? { project_id: fx.projectB, users: [{ user_id: 'q', text: 'hello' }] }
                : { name: 'n' },
            ),
          );
          headers['Content-Type'] = 'application/json';
        }
        if (route.admin) headers['X-Admin-Token'] = stack().adminToken;
        const res = await probe({ method: route.method, path: query ? `${path}?${query}` : path, body, headers });
        if (res)
          await afterSuccess(route, exact, res, {
            params: decoded,
            body: body && JSON.parse(body.toString()),
            query: new URLSearchParams(query),
          });
      }),
      { seed: SEED + 1, numRuns: RUNS.targets, endOnFailure: true },
    );
    await expectAlive();
  });

  it('survives hostile raw request targets', async () => {
    const prefixes = [
      '',
      '/',
      '//',
      '/api/v1',
      '/api/v1/profiles',
      `/projects/${'1'.repeat(40)}`,
      '/healthz',
      'http://x',
      '*',
    ];
    const tails = fc.oneof(
      fc.constantFrom(
        '[',
        '//[',
        '//a:b@c',
        '//:99999',
        '/%',
        '/%%',
        '/%ZZ',
        '/%00',
        '/%C0%AF',
        '/..%2F..%2F',
        '?%',
        '?a=%E0%A4%A',
        '#x',
        '/\u00ff\u00fe',
        ';x',
        '\\..\\',
      ),
      fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => s.replace(/[^\x21-\xff]/g, '')),
      nastyString.map((s) => s.replace(/[^\x21-\xff]/g, '')),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...prefixes), tails, async (prefix, tail) => {
        const path = (prefix + tail).slice(0, 4000) || '/';
        tried++;
        const res = await send({ method: 'GET', path, headers: { 'X-API-Key': fx.key } });
        const shown = `GET ${path} -> ${res.status} ${res.text.slice(0, 200)}`;
        expect(res.status, shown).toBeLessThan(500);
        if (res.status >= 400) {
          refused++;
          expectJsonError(res, shown);
        } else succeeded++;
      }),
      { seed: SEED + 2, numRuns: RUNS.rawTargets, endOnFailure: true },
    );
    await expectAlive();
  });

  it('refuses bodies over 5 MB and extreme nesting without a 5xx', async () => {
    const headers = { 'X-API-Key': fx.key, 'Content-Type': 'application/json' };
    const usersPath = '/api/v1/users';
    const tooBig = Buffer.from(
      toJsonText({ project_id: fx.projectB, users: [{ user_id: 'big', text: 'x'.repeat(5 * 1024 * 1024) }] }),
    );
    expect(await probe({ method: 'POST', path: usersPath, body: tooBig, headers })).toBeUndefined();
    const deep = Buffer.from(`{"project_id":${fx.projectB},"users":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`);
    expect(await probe({ method: 'POST', path: usersPath, body: deep, headers })).toBeUndefined();
    const deepRule = Buffer.from(
      `{"name":"deep","rule":${'{"all":['.repeat(100_000)}{"field":"churn_risk_score","op":">=","value":1}${']}'.repeat(100_000)}}`,
    );
    expect(
      await probe({
        method: 'POST',
        path: `/projects/${fx.projectId}/pipelines/${fx.pipelineId}/segments`,
        body: deepRule,
        headers,
      }),
    ).toBeUndefined();
    const manyUsers = Buffer.from(
      JSON.stringify({
        project_id: fx.projectB,
        users: Array.from({ length: 1001 }, (_, i) => ({ user_id: `u${i}`, text: 'hi' })),
      }),
    );
    expect(await probe({ method: 'POST', path: usersPath, body: manyUsers, headers })).toBeUndefined();
    await expectAlive();
  });

  it('answers each route a request with real ids and a valid input with a success its check accepts', async () => {
    for (const route of ROUTES) {
      const name = `${route.method} ${route.pattern}`;
      if (checkedByRoute.has(name)) continue;
      // The route's own inputs, drawn until one is valid (with a fixed seed), all path ids real.
      const draws = fc.sample(fc.record({ body: route.body?.() ?? fc.constant(undefined), query: queryArb(route) }), {
        seed: SEED + 3,
        numRuns: 100,
      });
      for (const { body: value, query } of draws) {
        await restoreFixtures();
        const { path, decoded } = buildPath(route, [{ real: true }, { real: true }, { real: true }, { real: true }]);
        const headers: Record<string, string> = { 'X-API-Key': fx.key };
        const body = value === undefined ? undefined : Buffer.from(toJsonText(value), 'utf8');
        if (body) headers['Content-Type'] = 'application/json';
        if (route.admin) headers['X-Admin-Token'] = stack().adminToken;
        const res = await probe({ method: route.method, path: query ? `${path}?${query}` : path, body, headers });
        if (!res) continue;
        const sent = body === undefined ? undefined : JSON.parse(body.toString());
        await afterSuccess(route, true, res, { params: decoded, body: sent, query: new URLSearchParams(query) });
        break;
      }
    }
  });

  it('checked a success of every route the gateway documents', async () => {
    const doc = (await call('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))
        .map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const fuzzed = ROUTES.map((r) => `${r.method} ${r.pattern}`);
    expect(documented.filter((r) => !fuzzed.includes(r))).toEqual([]);
    // Every route's own check ran on at least one of its successes, not just counted in the summary.
    expect(fuzzed.filter((r) => !checkedByRoute.has(r))).toEqual([]);
  });

  it('leaves in the worker-written tables only what the accepted batches brought', { timeout: 360_000 }, async () => {
    expect(acceptedBatches.size).toBeGreaterThan(0);
    const drained = await expectWorkerWroteOnlyAcceptedBatches(db, fx.tenantId, acceptedBatches);
    console.log(`gateway fuzz drain: ${drained.batches} accepted batches, ${drained.messages} messages, nothing else`);
  });
});
