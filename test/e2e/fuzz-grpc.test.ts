/**
 * Property-based fuzzing of every gRPC method: random and mutated bytes through a raw client,
 * hostile field values through the generated clients, and messages over the server's receive
 * limit. Every answer must be a client-error status (never INTERNAL or UNKNOWN) or a success whose
 * response decodes and is right for the request the server decoded (SUCCESS_CHECKS); a refused call
 * must leave the database as it was; the server stays healthy.
 */
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfilesServiceService } from '../../gen/profiling/v1/profiles.js';
import { ProjectsServiceService } from '../../gen/profiling/v1/projects.js';
import { SegmentsServiceService } from '../../gen/profiling/v1/segments.js';
import { UsersServiceService } from '../../gen/profiling/v1/users.js';
import { WebhooksServiceService } from '../../gen/profiling/v1/webhooks.js';
import { LabelsServiceService } from '../../gen/profiling/v1/labels.js';
import { KeysServiceService } from '../../gen/profiling/v1/keys.js';
import { MAX_REQUEST_BYTES } from '../../src/transport/limits.js';
import { call, newTenant, stack, waitForBatch, type Tenant } from '../support/api.js';
import {
  dbFingerprint,
  expectProfilePage,
  expectRecoverAnswerWithin,
  expectWorkerWroteOnlyAcceptedBatches,
  makeDeliveryFixture,
  makeSegmentFixture,
  makeLabelFixture,
  fixtureExamples,
  makeWebhookFixture,
  nastyString,
  poisoned,
} from '../support/fuzz.js';
import { grpcClients, keyMetadata } from '../support/grpc.js';

const SEED = 6_2027;
const RUNS = { bytes: 700, fields: 700 };

/** What a refusal may be: the client's fault, a missing resource, or a limit. */
const CLIENT_ERRORS = new Set([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.ALREADY_EXISTS,
  status.FAILED_PRECONDITION,
  // `conflict`: a secret change during a rotation's overlap.
  status.ABORTED,
  status.OUT_OF_RANGE,
  status.RESOURCE_EXHAUSTED,
  status.PERMISSION_DENIED,
]);

interface Method {
  service: keyof ReturnType<typeof grpcClients>;
  name: string;
  path: string;
  requestSerialize: (value: any) => Buffer;
  requestDeserialize: (bytes: Buffer) => any;
  responseDeserialize: (bytes: Buffer) => any;
}

const SERVICES = {
  users: UsersServiceService,
  profiles: ProfilesServiceService,
  projects: ProjectsServiceService,
  segments: SegmentsServiceService,
  webhooks: WebhooksServiceService,
  labels: LabelsServiceService,
  keys: KeysServiceService,
};
const METHODS: Method[] = Object.entries(SERVICES).flatMap(([service, def]) =>
  Object.entries(def).map(([name, m]) => ({
    service: service as Method['service'],
    name,
    path: m.path,
    requestSerialize: m.requestSerialize,
    requestDeserialize: m.requestDeserialize,
    responseDeserialize: m.responseDeserialize,
  })),
);

/**
 * Project A (`projectId`) holds no users, so the erasures aimed at it remove nothing the drain
 * check counts on; project B holds the submitted users.
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
  /** A delivery of the fixture webhook (its test event), for ResendDelivery. */
  deliveryId: number;
  /** A key of the tenant for RevokeApiKey (a fuzzed revocation of `key` would end the run). */
  keyId: string;
}
let fx: Fixtures;

/** Makes each template's label name and example texts new, so a valid request stays valid. */
let labelDraws = 0;

/** A valid request for each method, against the fixtures (project B holds submitted users). */
function template(name: string): Record<string, any> {
  const seg = { projectId: fx.projectId, pipelineId: fx.pipelineId, segmentId: fx.segmentId };
  const hook = { projectId: fx.projectId, pipelineId: fx.pipelineId, webhookId: fx.webhookId };
  const pipe = { projectId: fx.projectId, pipelineId: fx.pipelineId };
  const rule = { field: 'churn_risk_score', op: '>=', value: 0.5 };
  const label = { projectId: fx.projectId, name: fx.labelName };
  const t: Record<string, Record<string, any>> = {
    createLabel: {
      projectId: fx.projectId,
      name: `grpc-label-${++labelDraws}`,
      examples: fixtureExamples(`grpc ${labelDraws}`),
    },
    listLabels: { projectId: fx.projectId },
    getLabel: { ref: label },
    updateLabel: { ref: label, description: 'd', examples: fixtureExamples(`grpc update ${++labelDraws}`) },
    addLabelExamples: { ref: label, examples: [{ text: `grpc added ${++labelDraws}`, match: true }] },
    classifyWithLabel: { ref: label, texts: ['where is my parcel', 'hello'] },
    deleteLabel: { ref: label },
    identifyUsers: {
      projectId: fx.projectB,
      sourceLabel: 'grpc-fuzz',
      users: [{ userId: 'g1', text: 'Too expensive, I may cancel', attributes: { plan: 'pro' } }],
    },
    getBatch: { projectId: fx.projectB, sourceId: fx.sourceId },
    listProfiles: { projectId: fx.projectB, sentimentTrend: 0, limit: 10 },
    getProfile: { projectId: fx.projectB, userId: FIXTURE_USER },
    getUserTimeline: { projectId: fx.projectB, userId: FIXTURE_USER, limit: 5 },
    deleteProfile: { projectId: fx.projectId, userId: 'nobody', suppress: true },
    getErasure: { erasureId: fx.erasureId },
    listErasures: { projectId: fx.projectId, kind: 'erasure', limit: 5 },
    listSuppressions: { projectId: fx.projectId, limit: 10 },
    liftSuppression: { projectId: fx.projectId, userId: 'nobody' },
    createProject: { name: 'grpc project', messageRetentionDays: 30 },
    getProject: { projectId: fx.projectId },
    updateProject: { projectId: fx.projectId, name: 'renamed project', messageRetentionDays: 30 },
    listProjects: {},
    createPipeline: { projectId: fx.projectId, name: 'grpc pipeline' },
    listPipelines: { projectId: fx.projectId },
    createSegment: { ...pipe, name: 'grpc segment', description: 'd', rule },
    listSegments: pipe,
    getSegment: { ref: seg },
    updateSegment: { ref: seg, name: 'renamed', rule },
    deploySegment: { ref: seg },
    undeploySegment: { ref: seg },
    deleteSegment: { ref: seg },
    listSegmentUsers: { ref: seg, limit: 10 },
    createWebhook: {
      ...pipe,
      url: 'https://hooks.example.com/grpc',
      secret: 'a-long-enough-secret',
      events: [1],
      segments: [],
    },
    listWebhooks: pipe,
    getWebhook: { ref: hook },
    updateWebhook: { ref: hook, isActive: true, events: { values: [2] } },
    deleteWebhook: { ref: hook },
    listDeliveries: { ref: hook, limit: 5 },
    resendDelivery: { ref: hook, deliveryId: fx.deliveryId },
    rotateWebhookSecret: { ref: hook, secret: 'a-rotated-secret-1', overlapSeconds: 60 },
    endSecretOverlap: { ref: hook },
    recoverWebhook: { ref: hook, since: new Date('2026-01-01T00:00:00Z') },
    sendTestEvent: { ref: hook },
    createApiKey: { name: 'grpc key', scopes: ['ingest'], projects: { allProjects: false, projects: [fx.projectId] } },
    listApiKeys: {},
    revokeApiKey: { id: fx.keyId },
    getCurrentApiKey: {},
    listApiKeyEvents: { limit: 5 },
  };
  return structuredClone(t[name]);
}

const ids = (list: { id: unknown }[]) => list.map((x) => x.id);
const DRAFT = 1;
/** SentimentTrend's numbers (common.proto) as the gateway's words. */
const TRENDS: Record<number, string> = { 1: 'improving', 2: 'stable', 3: 'declining' };
const DEPLOYED = 2;

/**
 * What a success must contain, given the request as the server decoded it (`q`) and the decoded
 * answer (`r`): the resource asked for, the names sent (trimmed), page sizes within the limits.
 */
const SUCCESS_CHECKS: Record<string, (q: any, r: any) => void | Promise<void>> = {
  identifyUsers: async (q, r) => {
    expect(r.accepted).toBe(q.users.length);
    const { rows } = await db.query('SELECT project_id, user_count FROM sources WHERE id = $1', [r.sourceId]);
    expect(rows).toEqual([{ project_id: String(q.projectId), user_count: q.users.length }]);
    acceptedBatches.add(r.sourceId);
  },
  getBatch: async (q, r) => {
    expect(r.batch).toMatchObject({ sourceId: q.sourceId, projectId: q.projectId });
    expect(['waiting', 'running', 'completed']).toContain(r.batch.status);
    const { rows } = await db.query('SELECT user_count FROM sources WHERE id = $1', [q.sourceId]);
    expect(r.batch.accepted).toBe(rows[0].user_count);
  },
  listProfiles: (q, r) =>
    expectProfilePage(
      {
        total: r.total,
        users: r.users.map((u: any) => ({
          churn: u.aggregates.churnRiskScore,
          trend: TRENDS[u.aggregates.sentimentTrend],
          messages: u.aggregates.messageCount,
        })),
      },
      {
        limit: q.limit || 20,
        offset: q.offset || 0,
        after: q.after,
        gte: q.churnRiskGte,
        lte: q.churnRiskLte,
        trend: q.sentimentTrend ? TRENDS[q.sentimentTrend] : undefined,
        minMessages: q.minMessages,
      },
    ),
  getProfile: (q, r) => expect(r.profile.userId).toBe(q.userId),
  getUserTimeline: (q, r) => {
    expect(r.userId).toBe(q.userId);
    expect(r.timeline.length).toBeLessThanOrEqual(q.limit || 100);
  },
  deleteProfile: (q, r) => {
    expect(r.erasure).toMatchObject({
      kind: 'erasure',
      state: 'completed',
      projectId: q.projectId,
      suppressed: q.suppress,
      requestedBy: fx.key.slice(0, 8),
    });
    expect(r.erasure.userIdHash).not.toBe('');
    // Only project B ever held users.
    if (q.projectId !== fx.projectB) expect(Object.values(r.erasure.counts).every((n) => n === 0)).toBe(true);
  },
  // A damaged id may still be the same UUID in capitals: answered in its canonical form.
  getErasure: (q, r) => expect(r.erasure).toMatchObject({ id: q.erasureId.toLowerCase(), kind: 'erasure' }),
  listErasures: (q, r) => {
    expect(r.erasures.length).toBeLessThanOrEqual(q.limit || 20);
    expect(r.erasures.every((e: any) => e.projectId === q.projectId)).toBe(true);
    if (q.kind) expect(r.erasures.every((e: any) => e.kind === q.kind)).toBe(true);
  },
  listSuppressions: async (q, r) => {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM suppressions WHERE project_id = $1', [q.projectId]);
    expect(r.suppressions.length).toBe(Math.min(q.limit || 100, Math.max(0, rows[0].n - (q.offset || 0))));
  },
  // Lifted: lifting again finds nothing.
  liftSuppression: async (q) => {
    const again = await call(
      'DELETE',
      `/api/v1/suppressions/${encodeURIComponent(q.userId)}?project_id=${q.projectId}`,
      { key: fx.key },
    );
    expect(again.status).toBe(404);
  },
  createProject: (q, r) => {
    expect(r.project.name).toBe(q.name.trim());
    expect(r.project.messageRetentionDays).toBe(q.messageRetentionDays);
  },
  getProject: (q, r) => expect(r.project.id).toBe(q.projectId),
  updateProject: (q, r) => {
    expect(r.project.id).toBe(q.projectId);
    if (q.name !== undefined) expect(r.project.name).toBe(q.name.trim());
    // 0 turns retention off: the answer leaves the field out.
    if (q.messageRetentionDays !== undefined)
      expect(r.project.messageRetentionDays).toBe(q.messageRetentionDays || undefined);
  },
  listProjects: (_q, r) => expect(ids(r.projects)).toContain(fx.projectId),
  createPipeline: (q, r) => expect(r.pipeline).toMatchObject({ projectId: q.projectId, name: q.name.trim() }),
  // Another project of the fuzz tenant (a damaged message can name one) answers its own pipelines.
  listPipelines: (q, r) =>
    q.projectId === fx.projectId
      ? expect(ids(r.pipelines)).toContain(fx.pipelineId)
      : expect(r.pipelines.every((p: any) => p.projectId === q.projectId)).toBe(true),
  createSegment: (q, r) =>
    expect(r.segment).toMatchObject({ pipelineId: q.pipelineId, name: q.name.trim(), status: DRAFT }),
  listSegments: (q, r) => expect(r.segments.every((s: any) => s.pipelineId === q.pipelineId)).toBe(true),
  getSegment: (q, r) => expect(r.segment.id).toBe(q.ref.segmentId),
  updateSegment: (q, r) => {
    expect(r.segment.id).toBe(q.ref.segmentId);
    if (q.name !== undefined) expect(r.segment.name).toBe(q.name.trim());
  },
  deploySegment: (q, r) => expect(r.segment).toMatchObject({ id: q.ref.segmentId, status: DEPLOYED }),
  undeploySegment: (q, r) => expect(r.segment).toMatchObject({ id: q.ref.segmentId, status: DRAFT }),
  deleteSegment: async (q) => {
    const { rows } = await db.query('SELECT 1 FROM segments WHERE pipeline_id = $1 AND slug = $2', [
      q.ref.pipelineId,
      q.ref.segmentId,
    ]);
    expect(rows).toEqual([]);
  },
  listSegmentUsers: (q, r) => {
    expect(r.users.length).toBeLessThanOrEqual(q.limit || 100);
    expect(r.total).toBeGreaterThanOrEqual(r.users.length);
  },
  createApiKey: (q, r) => {
    expect(r.key).toMatchObject({ name: q.name.trim(), createdBy: fx.key.slice(0, 8) });
    expect(r.apiKey).toMatch(/^sps_/);
    for (const s of r.key.scopes) expect(q.scopes).toContain(s);
  },
  listApiKeys: (_q, r) => {
    expect(r.keys.length).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toContain(fx.key);
  },
  revokeApiKey: (q, r) => expect(r.key).toMatchObject({ id: q.id, revokedAt: expect.any(Date) }),
  getCurrentApiKey: (_q, r) => expect(r.key.prefix).toBe(fx.key.slice(0, 8)),
  listApiKeyEvents: (q, r) => expect(r.events.length).toBeLessThanOrEqual(q.limit || 100),
  createLabel: (q, r) => expect(r.label).toMatchObject({ name: q.name, version: 1, examplesCount: q.examples.length }),
  listLabels: (q, r) =>
    q.projectId === fx.projectId ? expect(r.labels.map((l: any) => l.name)).toContain(fx.labelName) : undefined,
  getLabel: (q, r) => expect(r.label.name).toBe(q.ref.name),
  updateLabel: (q, r) => expect(r.label).toMatchObject({ name: q.ref.name, examples: q.examples }),
  addLabelExamples: (q, r) => expect(r.label.examples).toEqual(expect.arrayContaining(q.examples)),
  classifyWithLabel: (q, r) => expect(r.results).toHaveLength(q.texts.length),
  deleteLabel: async (q) =>
    expect(
      (await db.query('SELECT 1 FROM labels WHERE project_id = $1 AND name = $2', [q.ref.projectId, q.ref.name])).rows,
    ).toEqual([]),
  createWebhook: (q, r) => {
    expect(r.webhook).toMatchObject({ pipelineId: q.pipelineId, isActive: true });
    expect(new URL(r.webhook.url).protocol).toBe('https:');
    expect(new Set(r.webhook.events)).toEqual(new Set(q.events.length ? q.events : [1, 2]));
    expect(JSON.stringify(r)).not.toContain('secret');
  },
  listWebhooks: (q, r) => expect(r.webhooks.every((w: any) => w.pipelineId === q.pipelineId)).toBe(true),
  getWebhook: (q, r) => expect(r.webhook.id).toBe(q.ref.webhookId),
  updateWebhook: (q, r) => {
    expect(r.webhook.id).toBe(q.ref.webhookId);
    if (q.isActive !== undefined) expect(r.webhook.isActive).toBe(q.isActive);
    if (q.events) expect(new Set(r.webhook.events)).toEqual(new Set(q.events.values));
  },
  deleteWebhook: async (q) =>
    expect((await db.query('SELECT 1 FROM webhooks WHERE id = $1', [q.ref.webhookId])).rows).toEqual([]),
  listDeliveries: (q, r) => {
    expect(r.deliveries.length).toBeLessThanOrEqual(q.limit || 50);
    expect(r.deliveries.every((d: any) => d.webhookId === q.ref.webhookId)).toBe(true);
    if (q.status !== undefined) expect(r.deliveries.every((d: any) => d.status === q.status)).toBe(true);
    if (q.before !== undefined) expect(r.deliveries.every((d: any) => d.id < q.before)).toBe(true);
  },
  resendDelivery: (_q, r) => expect(r.workflowId).toMatch(/^delivery-/),
  rotateWebhookSecret: (q, r) => {
    expect(r.webhook.id).toBe(q.ref.webhookId);
    if (q.secret !== undefined) expect(r.secret).toBe(q.secret);
    else expect(r.secret).toMatch(/^whsec_/);
  },
  endSecretOverlap: (q, r) => {
    expect(r.webhook.id).toBe(q.ref.webhookId);
    expect(r.webhook.previousSecretExpiresAt).toBeUndefined();
  },
  recoverWebhook: (q, r) => expectRecoverAnswerWithin(db, q.ref.webhookId, q.since, r),
  sendTestEvent: async (q, r) => {
    const { rows } = await db.query(
      `SELECT e.event_type FROM events e JOIN outbox o ON o.event_id = e.id WHERE e.id = $1 AND o.webhook_id = $2`,
      [r.eventId, q.ref.webhookId],
    );
    expect(rows).toEqual([{ event_type: 'ping' }]);
  },
};

// --- protobuf wire helpers, to write what the generated encoders never would -------------------

function varint(n: bigint): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}
const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const lenField = (field: number, payload: Buffer) =>
  Buffer.concat([tag(field, 2), varint(BigInt(payload.length)), payload]);

/**
 * Struct {"a": Struct {"a": ... 0.0}} nested `depth` times. Every layer only prepends a header
 * (Struct.fields entry with key "a", then Value.struct_value), so the headers are collected and
 * joined once instead of re-copying the growing message per layer.
 */
function deepStruct(depth: number): Buffer {
  const key = lenField(1, Buffer.from('a'));
  const chunks: Buffer[] = [Buffer.concat([tag(2, 1), Buffer.alloc(8)])]; // innermost Value.number_value = 0.0
  let size = chunks[0].length; // size of the current Value
  for (let i = 0; i < depth; i++) {
    const valueHeader = Buffer.concat([tag(2, 2), varint(BigInt(size))]); // entry.value
    const entrySize = key.length + valueHeader.length + size;
    const structHeader = Buffer.concat([tag(1, 2), varint(BigInt(entrySize))]); // Struct.fields
    const structSize = structHeader.length + entrySize;
    const asValue = Buffer.concat([tag(5, 2), varint(BigInt(structSize))]); // Value.struct_value
    chunks.push(valueHeader, key, structHeader);
    if (i < depth - 1) chunks.push(asValue);
    size = i < depth - 1 ? asValue.length + structSize : structSize;
  }
  return Buffer.concat(chunks.reverse());
}

/** Byte-level damage to a valid encoding, and wire fragments that are invalid on their own. */
const WIRE_SNIPPETS: Buffer[] = [
  Buffer.concat([tag(1, 0), varint(2n ** 63n - 1n)]), // int64 beyond 2^53 in field 1
  Buffer.concat([tag(1, 0), varint(-1n)]), // negative int64, ten bytes
  Buffer.concat([tag(1, 0), Buffer.alloc(11, 0xff)]), // varint that never ends
  Buffer.concat([tag(1, 2), varint(1_000_000n), Buffer.from('short')]), // length past the end
  Buffer.concat([tag(2, 2), varint(3n), Buffer.from([0xff, 0xfe, 0xfd])]), // invalid UTF-8 in a string / message
  Buffer.concat([tag(1, 3)]), // start group, never ended
  Buffer.concat([tag(1, 4)]), // end group out of nowhere
  Buffer.concat([tag(1, 6), Buffer.from([1])]), // wire type 6 does not exist
  Buffer.concat([tag(1, 7), Buffer.from([1])]), // nor 7
  Buffer.from([0x00]), // field number 0
  Buffer.concat([tag(536870911, 0), varint(1n)]), // largest field number, unknown
  Buffer.concat([tag(1, 1), Buffer.from([0, 0, 0, 0, 0, 0, 0xf8, 0x7f])]), // fixed64 NaN where an int64 is expected
  Buffer.concat([tag(3, 2), varint(2n), Buffer.from([0xc0, 0xaf])]), // overlong UTF-8
];

function mutateBytes(base: Buffer): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.nat().map((n) => base.subarray(0, base.length ? n % base.length : 0)),
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([n, b]) => {
      const copy = Buffer.from(base);
      if (copy.length) copy[n % copy.length] = b;
      return copy;
    }),
    fc.tuple(fc.nat(), fc.constantFrom(...WIRE_SNIPPETS)).map(([n, s]) => {
      const at = base.length ? n % base.length : 0;
      return Buffer.concat([base.subarray(0, at), s, base.subarray(at)]);
    }),
    fc.constantFrom(...WIRE_SNIPPETS).map((s) => Buffer.concat([base, s])),
    fc.constantFrom(...WIRE_SNIPPETS).map((s) => Buffer.concat([s, base])),
  );
}

const hostileNumber = fc.oneof(
  fc.constantFrom(
    NaN,
    Infinity,
    -Infinity,
    2 ** 63,
    -(2 ** 63),
    2 ** 53 + 2,
    -1,
    0,
    -0,
    1.5,
    1e308,
    2 ** 31,
    -(2 ** 31) - 1,
  ),
  fc.double(),
  fc.integer(),
);
const hostileText = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  {
    weight: 3,
    arbitrary: poisoned(
      fc.constantFrom('g1', 'grpc name', 'fixture-1', 'https://hooks.example.com/x', 'churn_risk_score'),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(1, 3).map((n) => 'x'.repeat(n * 1_000_000)) },
);

/** Values of the wrong type, out of range, or hostile in content, for any field of a generated request. */
const hostileField: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  {
    weight: 1,
    arbitrary: fc.constantFrom(true, false, null, undefined, {}, [], new Date(Number.NaN), new Date(8.64e15)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(nastyString, fc.integer()), { maxLength: 4 }) },
  // Oversized: arrays past the batch limit, strings of megabytes. Rare, they are the slow ones.
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc
        .integer({ min: 1_001, max: 5_000 })
        .map((n) => Array.from({ length: n }, (_, i) => ({ userId: `u${i}`, text: 'x' }))),
      fc.constantFrom(1, 3).map((n) => 'x'.repeat(n * 1_000_000)),
    ),
  },
);

/** Every leaf (and every object) of a request, as a path of keys. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [...(prefix.length ? [prefix] : []), ...entries.flatMap(([k, v]) => paths(v, [...prefix, k]))];
}

function setPath(target: any, path: (string | number)[], value: unknown): void {
  if (path.length === 0) return;
  let node = target;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
}

// --- calling -------------------------------------------------------------------------------------

interface Outcome {
  code: status;
  details: string;
  response?: Buffer;
  /** The decoded answer of a generated client. */
  decoded?: unknown;
}

let raw: Client;
let db: pg.Client;
let md: Metadata;
let tried = 0;
let refused = 0;
let succeeded = 0;
let checked = 0;
/** Checked successes by method name: every method must have at least one. */
const checkedByMethod = new Map<string, number>();
/** Source ids of the submissions the server accepted, for the drain check at the end. */
const acceptedBatches = new Set<number>();
let encoderRefused = 0;
/** The fingerprint after the last refused call: nothing the worker does in the background changes it. */
let known: Record<string, string> | undefined;

function rawCall(path: string, bytes: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    raw.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      { deadline: Date.now() + 60_000 },
      (err: ServiceError | null, res?: Buffer) =>
        resolve(err ? { code: err.code, details: err.details } : { code: status.OK, details: '', response: res }),
    );
  });
}

/**
 * One fuzzed call (`send`): a client-error status or a success whose response decodes, and nothing
 * written when refused.
 */
async function probe(
  method: Method,
  sentBytes: Buffer,
  send: () => Promise<Outcome>,
  shown: () => string,
): Promise<Outcome> {
  tried++;
  const before = (known ??= await dbFingerprint(db));
  const out = await send();
  const what = () => `${method.path} ${shown().slice(0, 400)} -> ${status[out.code]} ${out.details.slice(0, 300)}`;
  if (out.code === status.OK) {
    succeeded++;
    known = undefined;
    let answer = out.decoded;
    if (out.response) expect(() => (answer = method.responseDeserialize(out.response!)), what()).not.toThrow();
    const check = SUCCESS_CHECKS[method.name];
    expect(check, `no success check for ${method.name}`).toBeDefined();
    try {
      await check(method.requestDeserialize(sentBytes), answer);
    } catch (err) {
      throw new Error(`wrong success: ${what()} answered ${JSON.stringify(answer)?.slice(0, 400)}`, { cause: err });
    }
    checked++;
    checkedByMethod.set(method.name, (checkedByMethod.get(method.name) ?? 0) + 1);
    if (method.name.startsWith('delete') || method.name === 'revokeApiKey') await restoreFixtures();
    return out;
  }
  refused++;
  expect(CLIENT_ERRORS.has(out.code), what()).toBe(true);
  known = await dbFingerprint(db);
  expect(known, `database changed by a refused call: ${what()}`).toEqual(before);
  return out;
}

const probeRaw = (method: Method, bytes: Buffer, shown: () => string) =>
  probe(method, bytes, () => rawCall(method.path, bytes), shown);

/** The fixture webhook, and a delivery of it for ResendDelivery. */
async function makeWebhook(): Promise<number> {
  const id = await makeWebhookFixture(fx);
  fx.deliveryId = await makeDeliveryFixture(fx, id);
  return id;
}
const makeSegment = () => makeSegmentFixture(fx);
const makeLabel = () => makeLabelFixture(fx);

/** The user of the fixture batch (project B): its profile and timeline can be found. */
const FIXTURE_USER = 'g0';

/**
 * Everything a valid request may need, put back: what restoreFixtures() does, the profile of
 * project B and the suppression of project A (a fuzzed delete or lift may have taken them).
 */
async function restoreAllFixtures(): Promise<void> {
  await restoreFixtures();
  if (
    (await call('GET', `/api/v1/profiles/${FIXTURE_USER}?project_id=${fx.projectB}`, { key: fx.key })).status === 404
  ) {
    const batch = await call('POST', '/api/v1/users', {
      key: fx.key,
      body: { project_id: fx.projectB, users: [{ user_id: FIXTURE_USER, text: 'Fine so far.' }] },
    });
    acceptedBatches.add(batch.body.source_id);
    await waitForBatch(batch.body.source_id);
  }
  await call('DELETE', `/api/v1/profiles/nobody?project_id=${fx.projectId}&suppress=true`, { key: fx.key });
  known = undefined;
}

/** A fuzzed delete that succeeded removed a fixture: make it again. */
async function restoreFixtures(): Promise<void> {
  const base = `/projects/${fx.projectId}/pipelines/${fx.pipelineId}`;
  if ((await call('GET', `${base}/webhooks/${fx.webhookId}`, { key: fx.key })).status === 404)
    fx.webhookId = await makeWebhook();
  if ((await call('GET', `${base}/segments/${fx.segmentId}`, { key: fx.key })).status === 404)
    fx.segmentId = await makeSegment();
  if ((await call('GET', `/api/v1/projects/${fx.projectId}/labels/${fx.labelName}`, { key: fx.key })).status === 404)
    fx.labelName = await makeLabel();
  const keys = (await call('GET', '/api/v1/api-keys', { key: fx.key })).body.keys as { id: string }[];
  if (!keys.some((k) => k.id === fx.keyId)) fx.keyId = await makeKey();
}

/** A key of the tenant for RevokeApiKey to revoke. */
async function makeKey(): Promise<string> {
  const made = await call('POST', '/api/v1/api-keys', {
    key: fx.key,
    body: { name: 'grpc fuzz spare', scopes: ['ingest'] },
  });
  if (made.status !== 201) throw new Error(`key fixture: ${made.status}`);
  return made.body.id;
}

describe('gRPC fuzzing', () => {
  let apiPid: number;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: stack().databaseUrl });
    await db.connect();
    const t = await newTenant('grpc-fuzz');
    const b = await call('POST', '/api/v1/projects', { key: t.key, body: { name: 'grpc fuzz users' } });
    fx = {
      ...t,
      projectB: b.body.id,
      webhookId: 0,
      segmentId: '',
      labelName: '',
      erasureId: '',
      sourceId: 0,
      deliveryId: 0,
      keyId: '',
    };
    const batch = await call('POST', '/api/v1/users', {
      key: t.key,
      body: { project_id: fx.projectB, users: [{ user_id: FIXTURE_USER, text: 'Fine so far.' }] },
    });
    fx.sourceId = batch.body.source_id;
    acceptedBatches.add(fx.sourceId);
    // A suppression in project A for a fuzzed lift to find.
    const erased = await call('DELETE', `/api/v1/profiles/nobody?project_id=${t.projectId}&suppress=true`, {
      key: t.key,
    });
    fx.erasureId = erased.body.id;
    fx.webhookId = await makeWebhook();
    fx.segmentId = await makeSegment();
    fx.labelName = await makeLabel();
    fx.keyId = await makeKey();
    md = keyMetadata(fx.key);
    raw = new Client(stack().grpcAddress, credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
    apiPid = ((await (await fetch(`${stack().controlUrl}/pids`)).json()) as { api: number }).api;
  });

  afterAll(async () => {
    console.log(
      `gRPC fuzz: ${tried} inputs tried (${refused} refused with a client-error status, ${succeeded} successes, ${checked} of them checked for content); ` +
        `${encoderRefused} more hostile requests were refused by the generated encoder before sending; seed ${SEED}`,
    );
    raw?.close();
    await db?.end();
  });

  async function expectHealthy() {
    // grpc.health.v1.Health/Check with an empty request: SERVING is `08 01`.
    const health = await rawCall('/grpc.health.v1.Health/Check', Buffer.alloc(0));
    expect(health.code).toBe(status.OK);
    expect([...health.response!]).toEqual([0x08, 0x01]);
    expect((await call('GET', '/healthz')).status).toBe(200);
    const pids = (await (await fetch(`${stack().controlUrl}/pids`)).json()) as { api: number };
    expect(pids.api, 'the api process was restarted: it crashed').toBe(apiPid);
  }

  it('answers random and damaged bytes on every method with a client-error status', async () => {
    const arb = fc.integer({ min: 0, max: METHODS.length - 1 }).chain((i) => {
      const valid = METHODS[i].requestSerialize(template(METHODS[i].name));
      return fc.record({
        method: fc.constant(i),
        bytes: fc.oneof(
          { weight: 2, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
          { weight: 4, arbitrary: mutateBytes(valid) },
          { weight: 1, arbitrary: fc.constantFrom(...WIRE_SNIPPETS) },
        ),
      });
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ method, bytes }) => {
        await probeRaw(METHODS[method], bytes, () => bytes.toString('hex'));
      }),
      { seed: SEED, numRuns: RUNS.bytes, endOnFailure: true },
    );
    await expectHealthy();
  });

  it('answers wrong-typed, out-of-range and hostile fields through the generated clients', async () => {
    const clients = grpcClients();
    // Each mutation picks a field and a value: of the field's own type half of the time (so the
    // encoder lets it through and the server's validation is what gets judged), of any type otherwise.
    const mutation = fc.record({
      at: fc.nat(),
      sameType: fc.boolean(),
      number: hostileNumber,
      text: hostileText,
      any: hostileField,
    });
    const arb = fc.record({
      method: fc.integer({ min: 0, max: METHODS.length - 1 }),
      mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
      extra: fc.option(fc.tuple(nastyString, hostileField), { freq: 5 }),
    });
    try {
      await fc.assert(
        fc.asyncProperty(arb, async ({ method: i, mutations, extra }) => {
          const method = METHODS[i];
          const request = template(method.name);
          for (const m of mutations) {
            const all = paths(request);
            if (!all.length) continue;
            const path = all[m.at % all.length];
            const current = path.reduce((node: any, key) => node?.[key], request);
            const value = !m.sameType
              ? m.any
              : typeof current === 'number'
                ? m.number
                : typeof current === 'string'
                  ? m.text
                  : m.any;
            setPath(request, path, value);
          }
          if (extra) request[extra[0]] = extra[1];
          let bytes: Buffer;
          try {
            bytes = method.requestSerialize(request);
          } catch {
            // The generated encoder refuses the value on the client (grpc-js would report a local
            // INTERNAL "serialization failure"): nothing can reach the server.
            encoderRefused++;
            return;
          }
          const shown = () =>
            JSON.stringify(request, (_k, v) =>
              typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}…(${v.length})` : v,
            );
          const client = clients[method.service] as unknown as Record<string, (...a: unknown[]) => void>;
          await probe(
            method,
            bytes,
            () =>
              new Promise<Outcome>((resolve) =>
                client[method.name].call(
                  client,
                  request,
                  md,
                  { deadline: Date.now() + 60_000 },
                  (err: ServiceError | null, res: unknown) =>
                    resolve(
                      err ? { code: err.code, details: err.details } : { code: status.OK, details: '', decoded: res },
                    ),
                ),
              ),
            shown,
          );
        }),
        { seed: SEED + 1, numRuns: RUNS.fields, endOnFailure: true },
      );
    } finally {
      for (const c of Object.values(clients)) c.close();
    }
    await expectHealthy();
  });

  it('refuses messages over the receive limit, huge batches and deep nesting without INTERNAL', async () => {
    const identify = METHODS.find((m) => m.name === 'identifyUsers')!;
    const over = await probeRaw(
      identify,
      Buffer.alloc(MAX_REQUEST_BYTES + 1, 0x41),
      () => `${MAX_REQUEST_BYTES + 1} bytes`,
    );
    expect(over.code).toBe(status.RESOURCE_EXHAUSTED);
    const bigText = identify.requestSerialize({
      projectId: fx.projectB,
      users: [{ userId: 'big', text: 'x'.repeat(MAX_REQUEST_BYTES) }],
    });
    expect((await probeRaw(identify, bigText, () => 'one text over the limit')).code).toBe(status.RESOURCE_EXHAUSTED);
    const { users } = grpcClients();
    const oversized = { projectId: fx.projectB, users: [{ userId: 'big', text: 'y'.repeat(MAX_REQUEST_BYTES + 1) }] };
    const throughClient = await probe(
      identify,
      identify.requestSerialize(oversized),
      () =>
        new Promise<Outcome>((resolve) =>
          users.identifyUsers(oversized, md, (err) =>
            resolve(err ? { code: err.code, details: err.details } : { code: status.OK, details: '' }),
          ),
        ),
      () => 'generated client, one text over the limit',
    );
    users.close();
    expect(throughClient.code).toBe(status.RESOURCE_EXHAUSTED);
    const underLimit = identify.requestSerialize({
      projectId: fx.projectB,
      users: [{ userId: 'big', text: 'x'.repeat(MAX_REQUEST_BYTES - 1_000) }],
    });
    expect((await probeRaw(identify, underLimit, () => 'one text just under the limit')).code).toBe(
      status.INVALID_ARGUMENT,
    );
    const many = identify.requestSerialize({
      projectId: fx.projectB,
      users: Array.from({ length: 100_000 }, (_, i) => ({ userId: `u${i}`, text: 'hi' })),
    });
    expect((await probeRaw(identify, many, () => '100,000 users')).code).toBe(status.INVALID_ARGUMENT);
    for (const depth of [50, 5_000, 100_000]) {
      const user = Buffer.concat([
        lenField(1, Buffer.from('deep')),
        lenField(2, Buffer.from('hello')),
        lenField(3, deepStruct(depth)),
      ]);
      const bytes = Buffer.concat([tag(1, 0), varint(BigInt(fx.projectB)), lenField(2, user)]);
      expect((await probeRaw(identify, bytes, () => `attributes nested ${depth} deep`)).code).toBe(
        status.INVALID_ARGUMENT,
      );
      const segments = METHODS.find((m) => m.name === 'createSegment')!;
      const seg = Buffer.concat([
        tag(1, 0),
        varint(BigInt(fx.projectId)),
        tag(2, 0),
        varint(BigInt(fx.pipelineId)),
        lenField(4, Buffer.from('deep')),
        lenField(6, deepStruct(depth)),
      ]);
      expect((await probeRaw(segments, seg, () => `rule nested ${depth} deep`)).code).toBe(status.INVALID_ARGUMENT);
    }
    await expectHealthy();
  });

  it('answers each method’s valid request (real ids) with a success its check accepts', async () => {
    for (const method of METHODS) {
      if (checkedByMethod.has(method.name)) continue;
      await restoreAllFixtures();
      const bytes = method.requestSerialize(template(method.name));
      const out = await probeRaw(method, bytes, () => JSON.stringify(template(method.name)));
      expect(out.code, `${method.name}: ${out.details}`).toBe(status.OK);
    }
  });

  it('checked a success of every method of every service', () => {
    // Each method's own success check ran on at least one of its answers, not just counted in the summary.
    expect(METHODS.map((m) => m.name).filter((name) => !checkedByMethod.has(name))).toEqual([]);
  });

  it('leaves in the worker-written tables only what the accepted batches brought', { timeout: 360_000 }, async () => {
    expect(acceptedBatches.size).toBeGreaterThan(0);
    const drained = await expectWorkerWroteOnlyAcceptedBatches(db, fx.tenantId, acceptedBatches);
    console.log(`gRPC fuzz drain: ${drained.batches} accepted batches, ${drained.messages} messages, nothing else`);
  });
});
