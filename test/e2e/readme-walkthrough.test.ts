import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config.js';
import { stack, waitFor } from '../support/api.js';
import { startReceiver } from '../support/receiver.js';

const README = readFileSync(path.join(import.meta.dirname, '../../README.md'), 'utf8');

/** The README's walk-through blocks: fenced as ```sh walkthrough, so a reader's other blocks are left out. */
const blocks = [...README.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const MARK = '@@walkthrough block ends@@';

describe('the README walk-through', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it('stays a front page: under 300 lines, the rest in docs/', () => {
    expect(README.split('\n').length).toBeLessThan(300);
  });

  it('lists in its configuration table exactly the variables the service reads', () => {
    const section = README.slice(README.indexOf('## Configuration'), README.indexOf('## Operations'));
    const rows = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('sets exactly the variables the README tells the reader to export', () => {
    const exported = [...README.matchAll(/^export (.+)$/gm)].flatMap((m) =>
      m[1].split(/\s+/).map((a) => a.split('=')[0]),
    );
    expect(exported.sort()).toEqual(['ADMIN_TOKEN', 'BASE_URL', 'WEBHOOK_URL']);
  });

  it('runs verbatim: the profile is negative, and the receiver gets the signed user_added', async () => {
    expect(blocks).toHaveLength(5);
    // One bash session, as a reader's terminal: variables set by a block are seen by the next.
    // The last line is the test's own: the key, to read the webhook back as the reader could.
    const script = ['set -euo pipefail', ...blocks.map((b) => `${b}echo '${MARK}'`), 'echo "$KEY"'].join('\n');
    const { stdout } = await promisify(execFile)('bash', ['-c', script], {
      env: {
        ...process.env,
        BASE_URL: stack().gatewayUrl,
        ADMIN_TOKEN: stack().adminToken,
        WEBHOOK_URL: receiver.url,
      },
      timeout: 100_000,
    });
    const out = stdout.split(`${MARK}\n`).map((o) => o.trim());
    expect(out).toHaveLength(6);
    const key = out[5];
    expect(key).toMatch(/^sps_/);

    // Tenant, project, pipeline.
    const ids = out[0].match(/^project (\d+), pipeline (\d+)$/);
    expect(ids, out[0]).not.toBeNull();
    const [projectId, pipelineId] = [Number(ids![1]), Number(ids![2])];

    // The batch: 202's body, submitted with the backend's own key (ingest, this project only).
    expect(JSON.parse(out[1])).toMatchObject({ accepted: 1, source_id: expect.any(Number) });
    const keys = await fetch(`${stack().gatewayUrl}/api/v1/api-keys`, { headers: { 'X-API-Key': key } }).then((r) =>
      r.json(),
    );
    const backend = keys.keys.find((k: { name: string }) => k.name === 'shop backend');
    expect(backend).toMatchObject({ scopes: ['ingest'], projects: [projectId] });
    expect(backend.last_used_at).toEqual(expect.any(String));

    // The profile: what the README says it shows.
    const profile = JSON.parse(out[2]);
    expect(profile).toMatchObject({ user_id: 'alice', attributes: { plan: 'pro' } });
    expect(profile.aggregates.window_size).toBe(1);
    expect(profile.aggregates.avg_sentiment).toBeLessThan(0);
    expect(profile.aggregates.churn_risk_score).toBeGreaterThan(0);
    expect(profile.aggregates.churn_risk_factors).toEqual(expect.any(Object));
    // "and churn_words, what in her message was read as churn"
    expect(profile.aggregates.churn_risk_factors.churn_words.length).toBeGreaterThan(0);

    // The segment (draft) and the webhook's id.
    const [segmentLine, webhookLine] = out[3].split('\n');
    expect(JSON.parse(segmentLine)).toMatchObject({ id: 'unhappy-users', name: 'Unhappy users', status: 'draft' });
    const webhookId = Number(webhookLine.match(/^webhook (\d+)$/)?.[1]);
    expect(webhookId).toBeGreaterThan(0);
    const hook = await fetch(
      `${stack().gatewayUrl}/projects/${projectId}/pipelines/${pipelineId}/webhooks/${webhookId}`,
      {
        headers: { 'X-API-Key': key },
      },
    ).then((r) => r.json());
    expect(hook).toMatchObject({ url: receiver.url, is_active: true });
    expect(hook).not.toHaveProperty('secret');

    // The deploy, then the deliveries list with the successful attempt.
    const [deployLine, deliveriesLine] = out[4].split('\n');
    expect(JSON.parse(deployLine)).toMatchObject({ id: 'unhappy-users', status: 'deployed' });
    expect(JSON.parse(deliveriesLine)).toEqual([
      expect.objectContaining({ webhook_id: webhookId, status: 'success', status_code: 200 }),
    ]);

    // The receiver: the signed user_added, verified with the secret the README registered.
    const secret = blocks.join('\n').match(/"secret": "([^"]+)"/)![1];
    const got = await waitFor('the delivery', async () => receiver.received.find((r) => r.body.includes('alice')));
    expect(JSON.parse(got.body)).toMatchObject({
      event_type: 'user_added',
      pipeline_id: pipelineId,
      segment: { id: 'unhappy-users', name: 'Unhappy users' },
      user: { id: 'alice', score: expect.any(Number) },
    });
    expect(got.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(got.body).digest('hex'));
  });
});
