/**
 * Hostile inputs shared by the gateway and gRPC fuzz tests, and a database fingerprint to prove
 * that a refused request wrote nothing.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type pg from 'pg';
import { call, waitFor } from './api.js';

/** Strings that have broken parsers, number coercions, SQL, HTML and PostgreSQL text before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-1e309',
  '1e-400',
  '-0',
  '-1',
  '0',
  '1.5',
  '0x1F',
  '1_000',
  '9007199254740993',
  '99999999999999999999999',
  '00000000000000000000001',
  '+1',
  '1 ',
  ' 1',
  'true',
  'null',
  'undefined',
  '[]',
  '{}',
  "' OR '1'='1",
  '1; DROP TABLE users; --',
  "1' UNION SELECT key_hash FROM api_keys --",
  "'); DELETE FROM webhooks; --",
  '$1',
  '?',
  '\\',
  '%',
  '_',
  '%00',
  '%ZZ',
  '%E0%A4%A',
  '..',
  '../../etc/passwd',
  '/',
  '#',
  '&',
  '=',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}',
  '${jndi:ldap://x/a}',
  '\u0000',
  'a\u0000b',
  '\u0001\u001f\u007f',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\uFEFF',
  '\u202E',
  '\u2028',
  '🙂',
  'ǅ',
  'Ω',
  'ß',
  '\r\n',
  '__proto__',
  'constructor',
  'user_added',
  'user_removed',
  'stable',
  'https://127.0.0.1/',
  'https://[::1]/',
  'http://example.com/',
];

const LONG_UNITS = ['x', 'é', '🙂', "' OR 1=1 --", '\u0000', '<b>'];

/** Any of the nasty strings, random text (including control characters), combinations, and very long strings. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY_STRINGS))
      .map((p) => p.join('')),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...LONG_UNITS), fc.integer({ min: 200, max: 40_000 }))
      .map(([u, n]) => u.repeat(n)),
  },
);

/** Fragments slipped into otherwise valid strings: what the database, the JSON encoder or a template could choke on. */
export const INJECTIONS = [
  '\u0000',
  '\uD800',
  '\uDC00',
  "' OR '1'='1' --",
  '"; DROP TABLE webhooks; --',
  '<script>alert(1)</script>',
  '%00',
  '\\',
  '${x}',
  '🙂',
  '\u202E',
];

/** `base`, or `base` with an injection in the middle. */
export const poisoned = (base: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    base,
    fc.tuple(base, fc.constantFrom(...INJECTIONS), base).map(([a, b, c]) => a + b + c),
  );

/** A piece of JSON text written as is: numbers JSON.stringify cannot produce, deep nesting, etc. */
export class RawJson {
  constructor(readonly text: string) {}
}

export const rawNumbers = fc.constantFrom(
  '1e309',
  '-1e309',
  '1E400',
  '-0',
  '0.0000000000000000000000001',
  '123456789012345678901234567890',
  '9007199254740993',
  '1.0',
  '1e2',
  '4.9e-324',
);

export const deepNesting = fc
  .tuple(fc.boolean(), fc.integer({ min: 6, max: 20_000 }))
  .map(
    ([arrays, depth]) =>
      new RawJson(arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  );

/** Values of the wrong type for any field: strings, numbers, booleans, null, arrays, objects, deep nests. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: nastyString },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(0, -1, 1.5, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308),
    ),
  },
  { weight: 2, arbitrary: rawNumbers.map((t) => new RawJson(t)) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: deepNesting },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 4 }) },
);

/** JSON.stringify, except that RawJson values are written verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : toJsonText(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Everything a gateway or gRPC request can write synchronously, as counts and checksums. Tables
 * that only the worker writes (users, messages, memberships, user events, outbox, deliveries) are
 * left out: a batch accepted earlier may legitimately be processed between two snapshots. Those
 * are checked once the fuzzing is over, by `expectWorkerWroteOnlyAcceptedBatches`. Of a webhook
 * row, the columns the worker changes on its own are left out too: `failing_since` (a test event's
 * failed delivery) and the previous secret of a rotation (erased by the sweep when its overlap
 * ends); the current secret, the state and the filters are in. Of a segment row, the evaluation's
 * bookkeeping is left out (`evaluation_pending`, `evaluation_progress_at`: the relay starts a
 * deployed segment's evaluation after the request, and its pages stamp progress). Test events
 * (`ping`) and semantic condition vectors (stored with the rule) are written by requests only, so
 * they are counted; so are erasures and suppressions, but for the retention sweep's audit rows
 * (kind `retention`), which the worker writes.
 */
export async function dbFingerprint(db: pg.Client): Promise<Record<string, string>> {
  const sum = (table: string, order: string) =>
    `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY ${order}), '')) FROM ${table} t)`;
  const { rows } = await db.query(`SELECT
    (SELECT count(*) FROM tenants)::text AS tenants,
    -- Not last_used_at: a served request writes it (at most once a minute per key), refused or not.
    (SELECT md5(coalesce(string_agg(concat_ws(',', id, tenant_id, key_hash, prefix, created_at, revoked_at, uid, name,
        scopes, project_ids, expires_at, created_by), '|' ORDER BY id), '')) FROM api_keys) AS api_keys,
    (SELECT count(*) FROM api_key_events)::text AS api_key_events,
    ${sum('projects', 'id')} AS projects,
    ${sum('pipelines', 'id')} AS pipelines,
    (SELECT md5(coalesce(string_agg(concat_ws(',', pk, pipeline_id, project_id, slug, name, description, rule, status,
        version, version_uid, created_at, updated_at), '|' ORDER BY pk), '')) FROM segments) AS segments,
    (SELECT count(*) FROM segment_condition_vectors)::text AS condition_vectors,
    (SELECT md5(coalesce(string_agg(concat_ws(',', id, pipeline_id, url, secret_sealed, events, is_active, segments,
        disabled_reason, created_at, updated_at), '|' ORDER BY id), '')) FROM webhooks) AS webhooks,
    (SELECT count(*) FROM events WHERE event_type = 'ping')::text AS test_events,
    (SELECT count(*) FROM sources)::text AS sources,
    (SELECT count(*) FROM source_items)::text AS source_items,
    ${sum('idempotency_keys', 'tenant_id, key')} AS idempotency_keys,
    ${sum("(SELECT * FROM erasures WHERE kind = 'erasure')", 'id')} AS erasures,
    ${sum('suppressions', 'project_id, user_hash')} AS suppressions`);
  return rows[0] as Record<string, string>;
}

/** The webhook and segment the fuzz tests aim their path ids at (made again after a fuzzed delete). */
export async function makeWebhookFixture(t: { key: string; projectId: number; pipelineId: number }): Promise<number> {
  const r = await call('POST', `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks`, {
    key: t.key,
    body: { url: 'https://hooks.example.com/fuzz', secret: 'fixture-secret-123' },
  });
  if (r.status !== 201) throw new Error(`webhook fixture: ${r.status}`);
  return r.body.id;
}

/**
 * A delivery of the webhook, for the resend route to find: its test event, sent and recorded
 * (the fixture's receiver does not exist, so the attempt is recorded failed; a resend is allowed).
 */
export async function makeDeliveryFixture(
  t: { key: string; projectId: number; pipelineId: number },
  webhookId: number,
): Promise<number> {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks/${webhookId}`;
  const sent = await call('POST', `${base}/test`, { key: t.key });
  if (sent.status !== 202) throw new Error(`delivery fixture: ${sent.status}`);
  return waitFor(
    'the fixture webhook’s first delivery',
    async () => {
      const r = await call('GET', `${base}/deliveries`, { key: t.key });
      return r.status === 200 && r.body.length > 0 && (r.body[r.body.length - 1].id as number);
    },
    60_000,
  );
}

let segmentSerial = 0;
export async function makeSegmentFixture(t: { key: string; projectId: number; pipelineId: number }): Promise<string> {
  const r = await call('POST', `/projects/${t.projectId}/pipelines/${t.pipelineId}/segments`, {
    key: t.key,
    body: {
      id: `fixture-${++segmentSerial}`,
      name: 'Fixture',
      rule: { field: 'churn_risk_score', op: '>=', value: 0.9 },
    },
  });
  if (r.status !== 201) throw new Error(`segment fixture: ${r.status}`);
  return r.body.id;
}

let labelSerial = 0;
/** 5 + 5 examples, unique to `tag`: a valid example set for the label routes. */
export const fixtureExamples = (tag: string) =>
  Array.from({ length: 10 }, (_, i) => ({ text: `${tag} fixture example ${i}`, match: i < 5 }));

/** A custom label of the tenant's project, trained (classify needs a ready version). */
export async function makeLabelFixture(t: { key: string; projectId: number }): Promise<string> {
  const name = `fixture-${++labelSerial}`;
  const r = await call('POST', `/api/v1/projects/${t.projectId}/labels`, {
    key: t.key,
    body: { name, examples: fixtureExamples(name) },
  });
  if (r.status !== 202) throw new Error(`label fixture: ${r.status} ${JSON.stringify(r.body)}`);
  await waitFor(
    `label fixture ${name} ready`,
    async () =>
      (await call('GET', `/api/v1/projects/${t.projectId}/labels/${name}`, { key: t.key })).body.state === 'ready',
    120_000,
  );
  return name;
}

/**
 * The drain point for what the worker writes: once every batch of the fuzzed tenant has completed,
 * its sources are exactly the accepted submissions, each fully accounted for, and its users,
 * messages and events all come from them (a refused request started nothing in the background).
 */
export async function expectWorkerWroteOnlyAcceptedBatches(
  db: pg.Client,
  tenantId: number,
  accepted: Set<number>,
): Promise<{ batches: number; messages: number }> {
  const projects = '(SELECT id FROM projects WHERE tenant_id = $1)';
  const one = async (sql: string) => (await db.query(sql, [tenantId])).rows[0].n as number;
  await waitFor(
    'every accepted batch completed',
    async () =>
      (await one(`SELECT count(*)::int AS n FROM sources WHERE project_id IN ${projects} AND completed_at IS NULL`)) ===
      0,
    300_000,
    500,
  );
  const sources = (
    await db.query(
      `SELECT s.id::int AS id, s.user_count, s.processed, s.failed,
              (SELECT count(*)::int FROM messages m WHERE m.source_id = s.id) AS messages
         FROM sources s WHERE s.project_id IN ${projects} ORDER BY s.id`,
      [tenantId],
    )
  ).rows;
  expect(sources.map((r) => r.id)).toEqual([...accepted].sort((a, b) => a - b));
  expect(sources.filter((r) => r.processed + r.failed !== r.user_count || r.messages !== r.processed)).toEqual([]);
  const strays = await one(
    `SELECT count(*)::int AS n FROM users u WHERE u.project_id IN ${projects}
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.user_pk = u.id)`,
  );
  expect(strays, 'users without a message from an accepted batch').toBe(0);
  const orphanEvents = await one(
    `SELECT count(*)::int AS n FROM events e WHERE e.project_id IN ${projects}
        AND e.event_type <> 'ping'
        AND NOT EXISTS (SELECT 1 FROM users u WHERE u.project_id = e.project_id AND u.user_id = e.user_id)`,
  );
  expect(orphanEvents, 'events for users no accepted batch brought').toBe(0);
  return { batches: sources.length, messages: sources.reduce((n, r) => n + r.messages, 0) };
}

/**
 * A recover answer held against the database without racing deliveries still under way: the
 * fixture's receiver (hooks.example.com) never answers, so the webhook's finally failed events only
 * grow, and every event the answer queued has its `recovery` outbox row, committed before the answer.
 */
export async function expectRecoverAnswerWithin(
  db: pg.Client,
  webhookId: number,
  since: Date,
  answer: { events: number; alreadyRecovering: number },
): Promise<void> {
  expect(Number.isSafeInteger(answer.events) && answer.events >= 0).toBe(true);
  expect(Number.isSafeInteger(answer.alreadyRecovering) && answer.alreadyRecovering >= 0).toBe(true);
  const { rows } = await db.query(
    `SELECT (SELECT count(DISTINCT d.event_id)::int FROM webhook_deliveries d
              WHERE d.webhook_id = $1 AND d.final AND d.created_at >= $2
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries ok
                                 WHERE ok.webhook_id = d.webhook_id AND ok.event_id = d.event_id
                                   AND ok.status = 'success')) AS failed,
            (SELECT count(*)::int FROM outbox WHERE webhook_id = $1 AND kind = 'recovery') AS queued`,
    [webhookId, since],
  );
  expect(answer.events + answer.alreadyRecovering).toBeLessThanOrEqual(rows[0].failed);
  expect(answer.events).toBeLessThanOrEqual(rows[0].queued);
}

/** A profile page against its own filters; page and total come from one statement, so they agree. */
export function expectProfilePage(
  page: { users: { churn: number; trend: string; messages: number }[]; total: number },
  q: {
    limit: number;
    offset: number;
    after?: string;
    gte?: number;
    lte?: number;
    trend?: string;
    minMessages?: number;
  },
): void {
  expect(Number.isSafeInteger(page.total)).toBe(true);
  // With a cursor the page starts wherever it points, so only its limit is known.
  if (q.after) expect(page.users.length).toBeLessThanOrEqual(q.limit);
  else expect(page.users.length).toBe(Math.min(q.limit, Math.max(0, page.total - q.offset)));
  for (const u of page.users) {
    if (q.gte !== undefined) expect(u.churn).toBeGreaterThanOrEqual(q.gte);
    if (q.lte !== undefined) expect(u.churn).toBeLessThanOrEqual(q.lte);
    if (q.trend !== undefined) expect(u.trend).toBe(q.trend);
    if (q.minMessages !== undefined) expect(u.messages).toBeGreaterThanOrEqual(q.minMessages);
  }
}
