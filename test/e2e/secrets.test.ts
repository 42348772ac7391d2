import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventType } from '../../gen/profiling/v1/common.js';
import { call, stack, waitFor, waitForBatch } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver, type Received } from '../support/receiver.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { receiverLibrarySecret } from '../support/receiver-secret.js';

const verifiesStandard = (secret: string, r: Received) => {
  try {
    new StandardWebhook(receiverLibrarySecret(secret)).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};

const NEGATIVE = 'This is terrible. The app keeps crashing, support ignores me and I want to cancel my subscription.';

/** A fetched history as JSON, bytes as base64 (as in Temporal's own JSON form; Buffers arrive via toJSON). */
function historyJson(history: unknown): string {
  return JSON.stringify(history, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    const b = value as { type?: unknown; data?: unknown } | null;
    if (b && b.type === 'Buffer' && Array.isArray(b.data)) return Buffer.from(b.data as number[]).toString('base64');
    return value;
  });
}

/** Payloads in a history are base64 in `data` (and in metadata values): decode every one. */
function decodedPayloads(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => decodedPayloads(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.data === 'string' && o.metadata && typeof o.metadata === 'object') {
      out.push(Buffer.from(o.data, 'base64').toString('utf8'));
      for (const v of Object.values(o.metadata))
        if (typeof v === 'string') out.push(Buffer.from(v, 'base64').toString('utf8'));
    }
    Object.values(o).forEach((v) => decodedPayloads(v, out));
  }
  return out;
}

/**
 * Drives a whole run with a unique API key and unique webhook secrets (one replaced by an update,
 * one set through gRPC), a receiver that fails the first attempt, and a resend; then scans every
 * response the client saw, the api and worker logs, and the Temporal histories of the run (raw
 * and with every payload decoded) for the key and the secrets, in clear and in base64.
 */
describe('secrets never leak', () => {
  const secrets = {
    created: `whsec-created-${randomBytes(12).toString('hex')}`,
    updated: `whsec-updated-${randomBytes(12).toString('hex')}`,
    grpc: `whsec-grpc-${randomBytes(12).toString('hex')}`,
    rotated: `whsec-rotated-${randomBytes(12).toString('hex')}`,
  };
  /** Secrets the service generated (gRPC rotation): searched for like the others. */
  const generated: string[] = [];
  let apiKey: string;
  const responses: string[] = [];
  let flaky: Awaited<ReturnType<typeof startReceiver>>;
  let plain: Awaited<ReturnType<typeof startReceiver>>;
  const clients = grpcClients();

  async function api(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
    const res = await call(method, path, { key: apiKey, ...opts });
    responses.push(`${res.status} ${JSON.stringify([...res.headers])} ${JSON.stringify(res.body)}`);
    return res;
  }
  async function grpcCall<T>(p: Promise<T>): Promise<T> {
    const r = await p;
    responses.push(JSON.stringify(r));
    return r;
  }

  beforeAll(async () => {
    flaky = await startReceiver((n) => (n === 1 ? 503 : 200));
    plain = await startReceiver();
    // The tenant creation answer is the one place the key is shown, once: it is not scanned.
    const t = await call('POST', '/admin/v1/tenants', {
      body: { name: 'secrets' },
      headers: { 'X-Admin-Token': stack().adminToken },
    });
    apiKey = t.body.api_key;
  });
  afterAll(async () => {
    await flaky?.close();
    await plain?.close();
    for (const c of Object.values(clients)) c.close();
  });

  it('shows the API key and webhook secrets in no response, log line or workflow history', async () => {
    const project = await api('POST', '/api/v1/projects', { body: { name: 'secrets project' } });
    const pipeline = await api('POST', `/projects/${project.body.id}/pipelines`, { body: { name: 'main' } });
    const [projectId, pipelineId] = [project.body.id as number, pipeline.body.id as number];
    const base = `/projects/${projectId}/pipelines/${pipelineId}`;
    const md = keyMetadata(apiKey);

    const hook = await api('POST', `${base}/webhooks`, { body: { url: flaky.url, secret: secrets.created } });
    expect(hook.status).toBe(201);
    expect((await api('PUT', `${base}/webhooks/${hook.body.id}`, { body: { secret: secrets.updated } })).status).toBe(
      200,
    );
    expect((await api('PUT', `${base}/webhooks/${hook.body.id}`, { body: { secret: 12345678 } })).status).toBe(400);
    await api('GET', `${base}/webhooks/${hook.body.id}`);
    await api('GET', `${base}/webhooks`);
    const grpcHook = await grpcCall(
      rpc(
        clients.webhooks,
        'createWebhook',
        {
          projectId,
          pipelineId,
          segments: [],
          url: plain.url,
          secret: secrets.grpc,
          events: [EventType.EVENT_TYPE_USER_ADDED],
        },
        md,
      ),
    );
    await grpcCall(
      rpc(clients.webhooks, 'getWebhook', { ref: { projectId, pipelineId, webhookId: grpcHook.webhook!.id } }, md),
    );

    await api('POST', `${base}/segments`, {
      body: { id: 'unhappy', name: 'Unhappy', rule: { field: 'avg_sentiment', op: '<', value: 0 } },
    });
    expect((await api('POST', `${base}/segments/unhappy/deploy`)).status).toBe(200);
    const viaHttp = await api('POST', '/api/v1/users', {
      headers: { 'Idempotency-Key': 'secrets-run' },
      body: { project_id: projectId, users: [{ user_id: 'leaky-1', text: NEGATIVE, attributes: { plan: 'pro' } }] },
    });
    expect(viaHttp.status).toBe(202);
    const viaGrpc = await grpcCall(
      rpc(clients.users, 'identifyUsers', { projectId, users: [{ userId: 'leaky-2', text: NEGATIVE }] }, md),
    );
    const sourceIds = [viaHttp.body.source_id as number, viaGrpc.sourceId];
    for (const id of sourceIds) await waitForBatch(id);

    // Both users reach both receivers; the flaky one answered 503 first, so it was retried.
    await waitFor('deliveries', async () => flaky.received.length >= 3 && plain.received.length >= 2, 60_000);
    const signed = flaky.received.at(-1)!;
    // The updated secret really signs: it went through the system, which is what makes this scan worth doing.
    expect(signed.headers['x-webhook-signature']).toBe(
      createHmac('sha256', secrets.updated).update(signed.body).digest('hex'),
    );
    expect(plain.received[0].headers['x-webhook-signature']).toBe(
      createHmac('sha256', secrets.grpc).update(plain.received[0].body).digest('hex'),
    );
    const deliveries = await api('GET', `${base}/webhooks/${hook.body.id}/deliveries`);
    expect(deliveries.body.map((d: { status: string }) => d.status)).toContain('failed');
    const resend = await api('POST', `${base}/webhooks/${hook.body.id}/deliveries/${deliveries.body[0].id}/resend`);
    expect(resend.status).toBe(202);
    await waitFor('resent delivery', async () => flaky.received.length >= 4);
    await grpcCall(
      rpc(clients.webhooks, 'listDeliveries', { ref: { projectId, pipelineId, webhookId: grpcHook.webhook!.id } }, md),
    );
    // Rotations: their answers are the one place a secret is shown, once, so they are not scanned.
    // The rotated secret then signs a test event in webhook-signature, beside the previous one,
    // which keeps X-Webhook-Signature until the overlap ends.
    const rotated = await call('POST', `${base}/webhooks/${hook.body.id}/rotate-secret`, {
      key: apiKey,
      body: { secret: secrets.rotated, overlap_seconds: 60 },
    });
    expect(rotated.body.secret).toBe(secrets.rotated);
    const ping = await api('POST', `${base}/webhooks/${hook.body.id}/test`);
    const pinged = await waitFor('the signed ping', async () =>
      flaky.received.find((r) => r.headers['webhook-id'] === String(ping.body.event_id)),
    );
    expect(pinged.headers['x-webhook-signature']).toBe(
      createHmac('sha256', secrets.updated).update(pinged.body).digest('hex'),
    );
    expect(pinged.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifiesStandard(secrets.rotated, pinged)).toBe(true);
    const grpcRotated = await rpc(
      clients.webhooks,
      'rotateWebhookSecret',
      { ref: { projectId, pipelineId, webhookId: grpcHook.webhook!.id } },
      md,
    );
    expect(grpcRotated.secret).toMatch(/^whsec_/);
    generated.push(grpcRotated.secret);
    await grpcCall(
      rpc(clients.webhooks, 'sendTestEvent', { ref: { projectId, pipelineId, webhookId: grpcHook.webhook!.id } }, md),
    );
    await api('GET', `/api/v1/profiles?project_id=${projectId}`);
    await api('GET', `/api/v1/profiles/leaky-1/timeline?project_id=${projectId}`);
    await api('GET', `${base}/segments/unhappy/users`);

    // The run's workflows: batches and segment evaluation by project, deliveries by pipeline; wait until all are closed.
    const connection = await Connection.connect({ address: stack().temporalAddress });
    const histories: string[] = [];
    let runCount = 0;
    try {
      const client = new Client({ connection, namespace: 'default' });
      const query = `ProjectId = "${projectId}" OR PipelineId = "${pipelineId}"`;
      const runs = await waitFor(
        'the run to finish',
        async () => {
          const found: { workflowId: string; runId: string; status: string }[] = [];
          for await (const w of client.workflow.list({ query }))
            found.push({ workflowId: w.workflowId, runId: w.runId, status: w.status.name });
          const ids = found.map((f) => f.workflowId);
          const complete =
            sourceIds.every((id) => ids.some((w) => new RegExp(`^batch-[0-9a-f]{12}-${id}$`).test(w))) &&
            ids.some((id) => id.startsWith('segment-evaluation-')) &&
            ids.filter((id) => id.startsWith('delivery-')).length >= 5 &&
            found.every((f) => f.status !== 'RUNNING');
          return complete && found;
        },
        90_000,
        500,
      );
      runCount = runs.length;
      for (const run of runs) {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const json = historyJson(history);
        histories.push(json, ...decodedPayloads(JSON.parse(json)));
      }
    } finally {
      await connection.close();
    }
    // The decoding works: the histories carry the run's own ids in clear.
    expect(histories.join('\n')).toContain(`"webhookId":${hook.body.id}`);
    expect(histories.join('\n')).toContain(`"sourceId":${sourceIds[0]}`);

    const logs = Object.values(stack().logs)
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8'));
    expect(logs.join('\n')).toContain('webhook attempt');

    const needles = [apiKey, ...Object.values(secrets), ...generated].flatMap((s) => [
      s,
      Buffer.from(s).toString('base64'),
      Buffer.from(s).toString('base64url'),
    ]);
    const places: [string, string[]][] = [
      ['responses', responses],
      ['logs', logs],
      ['workflow histories', histories],
    ];
    let scanned = 0;
    for (const [where, texts] of places) {
      for (const text of texts) {
        scanned += text.length;
        for (const needle of needles) expect(text.includes(needle), `${where} contain a secret`).toBe(false);
      }
    }
    console.log(
      `secrets scan: ${responses.length} responses, ${logs.length} log files, ${runCount} workflow runs (${histories.length} texts), ${scanned} characters, ${needles.length} needles: none found`,
    );
  });
});
