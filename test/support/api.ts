import pg from 'pg';
import type { StackInfo } from './stack-info.js';
import { checkAnswer } from './contract.js';

let cached: StackInfo | undefined;

/** The bench runs several stacks one after another: it names the current one. */
export function useStack(info: StackInfo): void {
  cached = info;
}

/** The running stack: named by test/support/await-stack.ts (a setup file), or by the benchmark (BENCH_STACK). */
export function stack(): StackInfo {
  cached ??= process.env.BENCH_STACK ? (JSON.parse(process.env.BENCH_STACK) as StackInfo) : undefined;
  if (!cached) throw new Error('no stack: this project needs test/support/await-stack.ts among its setupFiles');
  return cached;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the JSON gateway like an external client would. */
export async function call<T = any>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['X-API-Key'] = opts.key;
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(stack().gatewayUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* keep text */
  }
  // Every answer an end-to-end test receives must be one the OpenAPI document lists (contract.ts);
  // the bench measures and leaves that to the tests.
  if (!process.env.BENCH_STACK) {
    await checkAnswer(stack().gatewayUrl, {
      method,
      path,
      status: res.status,
      contentType: res.headers.get('content-type'),
      allow: res.headers.get('allow'),
      body: parsed,
    });
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

export interface Tenant {
  key: string;
  tenantId: number;
  projectId: number;
  pipelineId: number;
}

/** A fresh tenant with one project and one pipeline, through the admin route and the gateway. */
export async function newTenant(name = 'acme'): Promise<Tenant> {
  const t = await call('POST', '/admin/v1/tenants', {
    body: { name },
    headers: { 'X-Admin-Token': stack().adminToken },
  });
  if (t.status !== 201) throw new Error(`tenant: ${t.status} ${JSON.stringify(t.body)}`);
  const key = t.body.api_key as string;
  const p = await call('POST', '/api/v1/projects', { key, body: { name: `${name} project` } });
  const pl = await call('POST', `/projects/${p.body.id}/pipelines`, { key, body: { name: 'main' } });
  return { key, tenantId: t.body.tenant_id, projectId: p.body.id, pipelineId: pl.body.id };
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** Waits until the batch's workflow has recorded its completion. */
export async function waitForBatch(
  sourceId: number,
  timeoutMs = 120_000,
): Promise<{ processed: number; failed: number }> {
  return withDb((db) =>
    waitFor(
      `batch ${sourceId}`,
      async () => {
        const { rows } = await db.query(
          'SELECT processed, failed FROM sources WHERE id = $1 AND completed_at IS NOT NULL',
          [sourceId],
        );
        return rows[0];
      },
      timeoutMs,
    ),
  );
}

export async function withDb<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: stack().databaseUrl });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

export async function control(
  action: 'worker/kill' | 'worker/start' | 'worker2/kill' | 'worker2/start' | 'api/restart',
): Promise<void> {
  const res = await fetch(`${stack().controlUrl}/${action}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`control ${action}: ${await res.text()}`);
}
