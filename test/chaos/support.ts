import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { call, stack, waitFor, withDb, type Tenant } from '../support/api.js';

export type ChaosAction =
  | 'worker/kill'
  | 'worker/start'
  | 'worker2/kill'
  | 'worker2/start'
  | 'temporal/stop'
  | 'temporal/start'
  | 'postgres/stop'
  | 'postgres/start';

/** Asks the global setup's control server to break or repair a piece of the stack. */
export async function chaos(action: ChaosAction): Promise<void> {
  const res = await fetch(`${stack().controlUrl}/${action}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`control ${action}: ${await res.text()}`);
}

export async function pids(): Promise<{ api: number; worker: number; worker2: number | null }> {
  return (await fetch(`${stack().controlUrl}/pids`)).json() as Promise<{
    api: number;
    worker: number;
    worker2: number | null;
  }>;
}

/** Resident memory of a process in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  if (!line) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** A handful of texts with different sentiment, topics and intentions; the index keeps each one unique. */
const TEXTS = [
  'I am unhappy, the app is slow and keeps crashing.',
  'Great support team, thanks for the quick answer!',
  'Too expensive for what it does, I will cancel my subscription.',
  'Please add an export to Excel, that would help our reporting.',
  'The onboarding was confusing but the mobile app is lovely.',
  'Billing charged me twice this month, I want a refund.',
  'We are thinking about upgrading to the enterprise plan for SSO.',
  'Integrations with Slack stopped working after the update.',
];

export interface UserItem {
  user_id: string;
  text: string;
  timestamp?: string;
  attributes?: Record<string, unknown>;
}

export function makeUsers(prefix: string, count: number, from = 0): UserItem[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return {
      user_id: `${prefix}-${i}`,
      text: `${TEXTS[i % TEXTS.length]} (ticket ${i})`,
      attributes: { plan: i % 3 === 0 ? 'pro' : 'free' },
    };
  });
}

/** POST /api/v1/users, bounded so a hang fails the test instead of stalling it. */
export async function submit(t: Tenant, users: UserItem[], timeoutMs = 30_000) {
  return callBounded('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } }, timeoutMs);
}

/** Like `call`, but a request that takes longer than `timeoutMs` rejects (a hang is a failure). */
export async function callBounded(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown },
  timeoutMs: number,
) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${method} ${path} took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([call(method, path, opts), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export const ALL_RULE = { field: 'window_size', op: '>=', value: 1 };

/** A webhook on `url` and deployed segments (`everyone` by default) on the tenant's pipeline. */
export async function wire(
  t: Tenant,
  url: string | undefined,
  segments: { id: string; rule: unknown }[] = [{ id: 'everyone', rule: ALL_RULE }],
) {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  let webhookId = 0;
  if (url) {
    const wh = await call('POST', `${base}/webhooks`, { key: t.key, body: { url } });
    expect(wh.status, JSON.stringify(wh.body)).toBe(201);
    webhookId = wh.body.id;
  }
  for (const s of segments) {
    const seg = await call('POST', `${base}/segments`, { key: t.key, body: { id: s.id, name: s.id, rule: s.rule } });
    expect(seg.status, JSON.stringify(seg.body)).toBe(201);
    const dep = await call('POST', `${base}/segments/${s.id}/deploy`, { key: t.key });
    expect(dep.status, JSON.stringify(dep.body)).toBeLessThan(300);
  }
  return { base, webhookId };
}

export async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  return withDb(async (db) => (await db.query(text, params)).rows as T[]);
}

export async function messageCount(sourceIds: number[]): Promise<number> {
  const [r] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM messages WHERE source_id = ANY($1)', [
    sourceIds,
  ]);
  return r.n;
}

/** Waits until every listed batch is complete; returns processed/failed per source. */
export async function waitForBatches(
  sourceIds: number[],
  timeoutMs: number,
): Promise<Map<number, { processed: number; failed: number }>> {
  const rows = await waitFor(
    `${sourceIds.length} batches`,
    async () => {
      const r = await sql<{ id: number; processed: number; failed: number }>(
        'SELECT id::int AS id, processed, failed FROM sources WHERE id = ANY($1) AND completed_at IS NOT NULL',
        [sourceIds],
      );
      return r.length === sourceIds.length && r;
    },
    timeoutMs,
    500,
  );
  return new Map(rows.map((r) => [r.id, { processed: r.processed, failed: r.failed }]));
}

/** Events of a project that have no successful delivery yet. */
export async function undeliveredEvents(projectId: number): Promise<number> {
  const [r] = await sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM events e WHERE e.project_id = $1
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'success')`,
    [projectId],
  );
  return r.n;
}

export interface Received {
  at: number;
  eventId: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

/**
 * A real HTTPS webhook receiver that can be stopped (its port then refuses connections) and
 * started again on the same port. `respond` decides each answer from what it has seen so far, and
 * may take its time (to break something while a delivery is in flight).
 */
export async function restartableReceiver(
  respond: (r: Omit<Received, 'status'>, seen: Received[]) => number | Promise<number> = () => 200,
) {
  const received: Received[] = [];
  let server: https.Server | undefined;
  let port = 0;
  const start = async () => {
    if (server) return;
    const s = https.createServer({ cert: stack().certPem, key: stack().keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const r = {
          at: Date.now(),
          eventId: String(req.headers['x-event-id']),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        const status = await respond(r, received);
        received.push({ ...r, status });
        res
          .writeHead(status, { 'content-type': 'text/plain' })
          .end(status < 300 ? 'thanks' : `unavailable (${status})`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    if (!s) return;
    server = undefined;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  };
  await start();
  return {
    url: `https://127.0.0.1:${port}/hook`,
    received,
    start,
    stop,
    /** Event ids answered 2xx, with how many times each was. */
    successes(): Map<string, number> {
      const m = new Map<string, number>();
      for (const r of received) if (r.status < 300) m.set(r.eventId, (m.get(r.eventId) ?? 0) + 1);
      return m;
    },
  };
}

/** Every event of the project reached the receiver with a 2xx exactly once. */
export async function expectEachEventDeliveredOnce(projectId: number, successes: Map<string, number>): Promise<number> {
  const events = await sql<{ id: number }>('SELECT id FROM events WHERE project_id = $1', [projectId]);
  const ids = events.map((e) => String(e.id));
  const missing = ids.filter((id) => !successes.has(id));
  const twice = [...successes].filter(([id, n]) => ids.includes(id) && n !== 1);
  expect({ missing, twice }).toEqual({ missing: [], twice: [] });
  return ids.length;
}

/** Deep equality where numbers may differ by `tolerance`; returns the paths that differ. */
export function differences(a: unknown, b: unknown, tolerance = 1e-9, path = ''): string[] {
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= tolerance ? [] : [`${path}: ${a} != ${b}`];
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
    return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`];
  if (Array.isArray(a) !== Array.isArray(b)) return [`${path}: array vs object`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) =>
    differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], tolerance, `${path}.${k}`),
  );
}
