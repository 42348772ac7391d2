import { status } from '@grpc/grpc-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../support/contract.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';

/**
 * Every quota, against an api-only instance with its own database: small TENANT_… settings, and
 * the fixed quotas at their real values (src/quotas.ts). No worker runs, so batches stay in flight
 * and the counts are exactly what the test made.
 */
const DB = 'quotas_e2e';
const LIMITS = {
  TENANT_WEBHOOKS_PER_PIPELINE: '2',
  TENANT_SEGMENTS_PER_PIPELINE: '2',
  TENANT_BATCHES_IN_FLIGHT: '2',
  TENANT_PROJECTS: '3',
  TENANT_PIPELINES_PER_PROJECT: '6',
  TENANT_DEPLOYED_SEGMENTS_PER_PROJECT: '3',
  TENANT_LABELS_PER_PROJECT: '2',
  TENANT_EXAMPLES_PER_LABEL: '12',
};

let inst: Instance;
let db: pg.Client;
let key: string;
let projectId: number;

async function newPipeline(): Promise<string> {
  const pl = await inst.call('POST', `/projects/${projectId}/pipelines`, { key, body: { name: 'p' } });
  return `/projects/${projectId}/pipelines/${pl.body.id}`;
}
const count = async (sql: string, args: unknown[] = []) => (await db.query(sql, args)).rows[0].n as number;
const rule = { field: 'churn_risk_score', op: '>=', value: 0.5 };

describe('quotas', () => {
  beforeAll(async () => {
    const url = await createDatabase(DB);
    inst = await startInstance(url, 'quotas', { role: 'api', env: LIMITS });
    db = new pg.Client({ connectionString: url });
    await db.connect();
    const t = await inst.call('POST', '/admin/v1/tenants', { body: { name: 'quota tenant' } });
    key = t.body.api_key;
    projectId = (await inst.call('POST', '/api/v1/projects', { key, body: { name: 'p' } })).body.id;
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await inst?.stop();
    await dropDatabase(DB).catch(() => undefined);
  });

  it('webhooks per pipeline: the third is 422 quota_exceeded, over gRPC RESOURCE_EXHAUSTED; a delete frees a place', async () => {
    const base = await newPipeline();
    const make = () => inst.call('POST', `${base}/webhooks`, { key, body: { url: 'https://hooks.example.com/q' } });
    const [a] = [await make(), await make()];
    const third = await make();
    expect(third.status).toBe(422);
    expect(third.body.error).toMatchObject({ code: 'quota_exceeded', field: 'webhooks' });
    expect(third.body.error.message).toContain('TENANT_WEBHOOKS_PER_PIPELINE');
    const pipelineId = Number(base.split('/')[4]);
    expect(await count('SELECT count(*)::int AS n FROM webhooks WHERE pipeline_id = $1', [pipelineId])).toBe(2);

    const { webhooks } = grpcClients(inst.grpcAddress);
    const err = await rpc(
      webhooks,
      'createWebhook',
      { projectId, pipelineId, segments: [], url: 'https://h.example.com/g', events: [] },
      keyMetadata(key),
    ).catch((e) => e);
    webhooks.close();
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);

    expect((await inst.call('DELETE', `${base}/webhooks/${a.body.id}`, { key })).status).toBe(204);
    expect((await make()).status).toBe(201);
  });

  it('segments per pipeline: five concurrent creations with room for two create exactly two', async () => {
    const base = await newPipeline();
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        inst.call('POST', `${base}/segments`, { key, body: { id: `s${i}`, name: `S${i}`, rule } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 422, 422, 422]);
    expect(answers.filter((a) => a.status === 422).every((a) => a.body.error.code === 'quota_exceeded')).toBe(true);
    const pipelineId = Number(base.split('/')[4]);
    expect(await count('SELECT count(*)::int AS n FROM segments WHERE pipeline_id = $1', [pipelineId])).toBe(2);
  });

  it('semantic conditions per segment (25: 422) and rule size (50 nodes: 400), on create and on update', async () => {
    const base = await newPipeline();
    const semantic = (n: number) => ({ any: Array.from({ length: n }, (_, i) => ({ semantic: `topic number ${i}` })) });
    const tooMany = await inst.call('POST', `${base}/segments`, {
      key,
      body: { id: 'sem', name: 'Sem', rule: semantic(26) },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error).toMatchObject({ code: 'quota_exceeded', field: 'rule' });
    // The same description twice is one condition (embedded once).
    const repeated = { any: [{ semantic: 'same' }, { semantic: 'same' }, { semantic: 'other' }] };
    expect(
      (await inst.call('POST', `${base}/segments`, { key, body: { id: 'sem', name: 'Sem', rule: repeated } })).status,
    ).toBe(201);
    const update = await inst.call('PUT', `${base}/segments/sem`, { key, body: { rule: semantic(26) } });
    expect(update.status).toBe(422);
    const wide = { any: Array.from({ length: 50 }, () => rule) }; // 51 nodes
    const big = await inst.call('PUT', `${base}/segments/sem`, { key, body: { rule: wide } });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toContain('at most 50 nodes');
    const kept = await inst.call('GET', `${base}/segments/sem`, { key });
    expect(kept.body.rule).toEqual({
      any: [
        { semantic: 'same', min_similarity: 0.5 },
        { semantic: 'same', min_similarity: 0.5 },
        { semantic: 'other', min_similarity: 0.5 },
      ],
    });
  });

  it('resends per minute per webhook: the 31st is 429 with Retry-After, an idempotent replay takes no place', async () => {
    const base = await newPipeline();
    const pipelineId = Number(base.split('/')[4]);
    const hook = await inst.call('POST', `${base}/webhooks`, { key, body: { url: 'https://hooks.example.com/r' } });
    const {
      rows: [user],
    } = await db.query(`INSERT INTO users (project_id, user_id, source_label) VALUES ($1, 'u', 'api') RETURNING id`, [
      projectId,
    ]);
    const {
      rows: [event],
    } = await db.query(
      `INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_pk, user_id, event_type, score, seq)
       VALUES ($1, $2, 's', 'S', $3, 'u', 'user_added', 1, 1) RETURNING id`,
      [projectId, pipelineId, user.id],
    );
    const {
      rows: [delivery],
    } = await db.query(
      `INSERT INTO webhook_deliveries (event_id, webhook_id, attempt, attempt_key, status, status_code, response_body, duration_ms)
       VALUES ($1, $2, 1, 'fixture:1', 'failed', 503, '', 5) RETURNING id`,
      [event.id, hook.body.id],
    );
    const resend = (headers?: Record<string, string>) =>
      checkedFetch(inst.base, `${base}/webhooks/${hook.body.id}/deliveries/${delivery.id}/resend`, {
        method: 'POST',
        headers: { 'X-API-Key': key, ...headers },
      });
    const first = await resend({ 'Idempotency-Key': 'once' });
    expect(first.status).toBe(202);
    for (let i = 2; i <= 30; i++) expect((await resend()).status).toBe(202);
    const replay = await resend({ 'Idempotency-Key': 'once' });
    expect(replay.status).toBe(202); // the first answer again, no new place taken
    const over = await resend();
    expect(over.status).toBe(429);
    const wait = Number(over.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await over.json()).error.code).toBe('rate_limited');
  });

  it('recovers per minute per webhook: the 6th is 429 with Retry-After and queues nothing; a replay takes no place', async () => {
    const base = await newPipeline();
    const pipelineId = Number(base.split('/')[4]);
    const hook = await inst.call('POST', `${base}/webhooks`, { key, body: { url: 'https://hooks.example.com/rc' } });
    const {
      rows: [event],
    } = await db.query(
      `INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
       VALUES ($1, $2, '', '', '', 'ping', 0, 0) RETURNING id`,
      [projectId, pipelineId],
    );
    await db.query(
      `INSERT INTO webhook_deliveries (event_id, webhook_id, attempt, attempt_key, status, status_code, response_body, duration_ms, final)
       VALUES ($1, $2, 6, 'recover-fixture:6', 'failed', 503, '', 5, true)`,
      [event.id, hook.body.id],
    );
    const recover = (headers?: Record<string, string>) =>
      checkedFetch(inst.base, `${base}/webhooks/${hook.body.id}/recover`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ since: '2026-01-01T00:00:00Z' }),
      });
    const queued = () => count(`SELECT count(*)::int AS n FROM outbox WHERE webhook_id = $1`, [hook.body.id]);
    const first = await recover({ 'Idempotency-Key': 'recover-once' });
    expect(await first.json()).toEqual({ events: 1, already_recovering: 0 });
    // No worker runs here: the queued event stays under way, so the second finds it already queued.
    for (let i = 2; i <= 5; i++) expect(await (await recover()).json()).toEqual({ events: 0, already_recovering: 1 });
    expect((await recover({ 'Idempotency-Key': 'recover-once' })).status).toBe(202); // the first answer again
    const over = await recover();
    expect(over.status).toBe(429);
    const wait = Number(over.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await over.json()).error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('at most 5 recovers per minute per webhook'),
    });
    expect(await queued()).toBe(1);
  });

  it('projects per tenant: five concurrent creations with room for three create exactly three; gRPC RESOURCE_EXHAUSTED', async () => {
    const other = (await inst.call('POST', '/admin/v1/tenants', { body: { name: 'projects tenant' } })).body;
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        inst.call('POST', '/api/v1/projects', { key: other.api_key, body: { name: `p${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 422, 422]);
    const refused = answers.find((a) => a.status === 422)!;
    expect(refused.body.error).toMatchObject({ code: 'quota_exceeded', field: 'projects' });
    expect(refused.body.error.message).toContain('TENANT_PROJECTS');
    expect(await count('SELECT count(*)::int AS n FROM projects WHERE tenant_id = $1', [other.tenant_id])).toBe(3);
    const { projects } = grpcClients(inst.grpcAddress);
    const err = await rpc(projects, 'createProject', { name: 'grpc' }, keyMetadata(other.api_key)).catch((e) => e);
    projects.close();
    expect(err.code).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('labels per project: four concurrent creations with room for two create two; examples per label: 12', async () => {
    // A tenant of its own: the main one's projects are counted by the tests after this one.
    const key = (await inst.call('POST', '/admin/v1/tenants', { body: { name: 'labels tenant' } })).body.api_key;
    const project = (await inst.call('POST', '/api/v1/projects', { key, body: { name: 'labels' } })).body.id;
    const examples = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({ text: `${tag} example number ${i}`, match: i % 2 === 0 }));
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        inst.call('POST', `/api/v1/projects/${project}/labels`, {
          key,
          body: { name: `l${i}`, examples: examples(10, `l${i}`) },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 422, 422]);
    expect(answers.find((a) => a.status === 422)!.body.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'labels',
      message: expect.stringContaining('TENANT_LABELS_PER_PROJECT'),
    });
    expect(await count('SELECT count(*)::int AS n FROM labels WHERE project_id = $1', [project])).toBe(2);
    const made = answers.find((a) => a.status === 202)!.body.name;
    const more = await inst.call('POST', `/api/v1/projects/${project}/labels/${made}/examples`, {
      key,
      body: { examples: examples(3, 'more') },
    });
    expect(more.status).toBe(422);
    expect(more.body.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'examples',
      message: expect.stringContaining('TENANT_EXAMPLES_PER_LABEL'),
    });
    const kept = await inst.call('GET', `/api/v1/projects/${project}/labels/${made}`, { key });
    expect(kept.body).toMatchObject({ version: 1, examples_count: 10 });
    expect(
      (
        await inst.call('POST', `/api/v1/projects/${project}/labels/${made}/examples`, {
          key,
          body: { examples: examples(2, 'fits') },
        })
      ).status,
    ).toBe(202);
  });

  it('pipelines per project: eight concurrent creations with room for six create exactly six', async () => {
    const project = (await inst.call('POST', '/api/v1/projects', { key, body: { name: 'pipelines' } })).body.id;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        inst.call('POST', `/projects/${project}/pipelines`, { key, body: { name: `pl${i}` } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 201, 422, 422]);
    expect(answers.find((a) => a.status === 422)!.body.error).toMatchObject({
      code: 'quota_exceeded',
      field: 'pipelines',
      message: expect.stringContaining('TENANT_PIPELINES_PER_PROJECT'),
    });
    expect(await count('SELECT count(*)::int AS n FROM pipelines WHERE project_id = $1', [project])).toBe(6);
  });

  it('deployed segments per project, across its pipelines: four concurrent deploys with room for three deploy three; an undeploy frees a place', async () => {
    const project = (await inst.call('POST', '/api/v1/projects', { key, body: { name: 'deployed' } })).body.id;
    const bases: string[] = [];
    for (const name of ['a', 'b']) {
      const pl = await inst.call('POST', `/projects/${project}/pipelines`, { key, body: { name } });
      bases.push(`/projects/${project}/pipelines/${pl.body.id}`);
    }
    const segments = [
      `${bases[0]}/segments/s0`,
      `${bases[0]}/segments/s1`,
      `${bases[1]}/segments/s0`,
      `${bases[1]}/segments/s1`,
    ];
    for (const path of segments) {
      const [base, id] = [path.slice(0, path.lastIndexOf('/')), path.slice(path.lastIndexOf('/') + 1)];
      expect((await inst.call('POST', base, { key, body: { id, name: id, rule } })).status).toBe(201);
    }
    const answers = await Promise.all(segments.map((p) => inst.call('POST', `${p}/deploy`, { key })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 422]);
    const refused = answers.findIndex((a) => a.status === 422);
    expect(answers[refused].body.error).toMatchObject({
      code: 'quota_exceeded',
      message: expect.stringContaining('TENANT_DEPLOYED_SEGMENTS_PER_PROJECT'),
    });
    const deployed = () =>
      count(`SELECT count(*)::int AS n FROM segments WHERE project_id = $1 AND status = 'deployed'`, [project]);
    expect(await deployed()).toBe(3);
    expect((await inst.call('POST', `${segments[(refused + 1) % 4]}/undeploy`, { key })).status).toBe(200);
    expect((await inst.call('POST', `${segments[refused]}/deploy`, { key })).status).toBe(200);
    expect(await deployed()).toBe(3);
  });

  it('batches in flight per tenant: the third is 429 with Retry-After and stores nothing; a completed batch frees a place', async () => {
    const submit = () =>
      inst.call('POST', '/api/v1/users', {
        key,
        body: { project_id: projectId, users: [{ user_id: 'b', text: 'hello' }] },
      });
    const sources = () => count('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [projectId]);
    expect((await submit()).status).toBe(202);
    expect((await submit()).status).toBe(202);
    const res = await checkedFetch(inst.base, '/api/v1/users', {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, users: [{ user_id: 'b', text: 'hello' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('5');
    expect((await res.json()).error.code).toBe('rate_limited');
    expect(await sources()).toBe(2);
    await db.query(
      'UPDATE sources SET completed_at = now(), processed = 1, failed = 0 WHERE id = (SELECT min(id) FROM sources WHERE project_id = $1)',
      [projectId],
    );
    expect((await submit()).status).toBe(202);
    expect(await sources()).toBe(3);
  });
});
