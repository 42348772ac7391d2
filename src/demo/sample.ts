import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The demo's users: data/demo/users.json, written for it. */
export const DEMO_USERS_FILE = fileURLToPath(new URL('../../data/demo/users.json', import.meta.url));

export interface DemoUser {
  user_id: string;
  attributes: Record<string, string | number>;
  messages: string[];
}

export function demoUsers(file = DEMO_USERS_FILE): DemoUser[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { users: DemoUser[] }).users;
}

/** The segments the demo deploys: one per thing a customer would act on. */
export const DEMO_SEGMENTS = [
  { name: 'Unhappy users', rule: { field: 'avg_sentiment', op: '<', value: -0.2 } },
  { name: 'Churn risk', rule: { field: 'churn_risk_score', op: '>=', value: 0.5 } },
  { name: 'Price sensitive', rule: { field: 'price_sensitive_ratio', op: '>=', value: 0.5 } },
  {
    name: 'Happy advocates',
    rule: {
      all: [
        { field: 'avg_sentiment', op: '>=', value: 0.4 },
        { field: 'negative_ratio', op: '==', value: 0 },
      ],
    },
  },
];

export interface DemoTarget {
  baseUrl: string;
  apiKey: string;
  projectId: number;
  pipelineId: number;
}

async function api(t: DemoTarget, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.baseUrl}${route}`, {
    method,
    headers: { 'X-API-Key': t.apiKey, 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Deploys the demo's segments and a webhook to the receiver (both kept from an earlier run: a
 * segment that exists answers 409 and is deployed as it is; a webhook to the same URL is reused).
 * Answers the webhook's id.
 */
export async function setUpPipeline(t: DemoTarget, receiverUrl: string, secret: string): Promise<number> {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  const hooks = await api(t, 'GET', `${base}/webhooks`);
  const list = (Array.isArray(hooks.body) ? hooks.body : (hooks.body?.webhooks ?? [])) as { id: number; url: string }[];
  let webhookId = list.find((w) => w.url === receiverUrl)?.id;
  if (webhookId === undefined) {
    const made = await api(t, 'POST', `${base}/webhooks`, { url: receiverUrl, secret });
    if (made.status !== 201)
      throw new Error(`creating the demo webhook answered ${made.status}: ${JSON.stringify(made.body)}`);
    webhookId = made.body.id as number;
  }
  for (const s of DEMO_SEGMENTS) {
    const made = await api(t, 'POST', `${base}/segments`, s);
    if (made.status !== 201 && made.status !== 409)
      throw new Error(`creating segment "${s.name}" answered ${made.status}: ${JSON.stringify(made.body)}`);
    const id = made.status === 201 ? made.body.id : s.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const deployed = await api(t, 'POST', `${base}/segments/${id}/deploy`);
    if (deployed.status >= 300 && deployed.status !== 409)
      throw new Error(`deploying segment "${s.name}" answered ${deployed.status}: ${JSON.stringify(deployed.body)}`);
  }
  return webhookId;
}

/**
 * Sends the users' messages one round at a time (every user's first message, then every second
 * one...), each round once its batch is analysed, so that profiles move and segments change as
 * they would over days. Idempotency keys make a repeated round a replay, not new messages.
 */
export async function sendRounds(
  t: DemoTarget,
  users: DemoUser[],
  opts: { runId: string; print: (line: string) => void; pauseMs?: number },
): Promise<number> {
  const rounds = Math.max(...users.map((u) => u.messages.length));
  let sent = 0;
  for (let r = 0; r < rounds; r++) {
    const batch = users
      .filter((u) => u.messages[r])
      .map((u) => ({ user_id: u.user_id, text: u.messages[r], attributes: u.attributes }));
    const res = await api(
      t,
      'POST',
      '/api/v1/users',
      { project_id: t.projectId, users: batch },
      { 'Idempotency-Key': `demo-${opts.runId}-round-${r + 1}` },
    );
    if (res.status !== 202) throw new Error(`round ${r + 1} answered ${res.status}: ${JSON.stringify(res.body)}`);
    sent += batch.length;
    opts.print(`demo: round ${r + 1} of ${rounds} sent, ${batch.length} messages (batch ${res.body.source_id})`);
    for (;;) {
      const b = await api(t, 'GET', `/api/v1/batches/${res.body.source_id}?project_id=${t.projectId}`);
      if (b.body?.status === 'completed') break;
      await sleep(500);
    }
    opts.print(`demo: round ${r + 1} analysed`);
    if (r + 1 < rounds) await sleep(opts.pauseMs ?? 3_000);
  }
  return sent;
}
