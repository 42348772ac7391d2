import os from 'node:os';
import pg from 'pg';
import { startStack, type StackOptions } from '../test/support/stack.js';
import { cpuSeconds as cpuOf } from './procs.js';
import type { StackInfo } from '../test/support/stack-info.js';

/**
 * Delivery capacity (issue 25), measured apart from analysis: N profiles exist; deploying a segment
 * that every one of them matches fans out N `user_added` events to one HTTPS receiver that answers
 * at once. Each row runs on a stack of its own (topology below), started for the row.
 */
export const ROWS: { name: string; options: StackOptions; ingestBeside?: boolean; env?: Record<string, string> }[] = [
  { name: 'dev server + 1 worker', options: { temporal: 'dev', workers: 'one', apis: 1 } },
  { name: 'real server + 1 worker', options: { temporal: 'real', workers: 'one', apis: 1 } },
  { name: 'real server + analysis worker + delivery worker', options: { temporal: 'real', workers: 'split', apis: 1 } },
  {
    name: 'the same, while another tenant ingests',
    options: { temporal: 'real', workers: 'split', apis: 1 },
    ingestBeside: true,
  },
  // Not one of the four topologies: the third with four times the default per-webhook bound, to
  // show what the bound costs a single receiver's fan-out.
  {
    name: 'real server + analysis worker + delivery worker, WEBHOOK_MAX_IN_FLIGHT=16',
    options: { temporal: 'real', workers: 'split', apis: 1 },
    env: { WEBHOOK_MAX_IN_FLIGHT: '16' },
  },
];

export interface RowResult {
  row: string;
  events: number;
  deliveriesPerSecond: number;
  /** Event committed (events.created_at) to received by the receiver, ms. */
  latencyMs: { p50: number; p99: number };
  /** CPU seconds per process over the fan-out (first event committed to last received). */
  cpuSeconds: Record<string, number>;
  /** The process with the most CPU per second of the fan-out, and how much of one core it used. */
  limit: { process: string; coreShare: number };
  /** All processes' CPU over the fan-out as a share of the machine's cores (near 1: the machine is the limit). */
  machineShare: number;
  /** CPU milliseconds per delivery, all processes together. */
  cpuMsPerDelivery: number;
  /** Users the other tenant had analysed meanwhile (the row with ingestion beside). */
  ingestedBeside?: number;
  /** Temporal round trips counted in the history of one delivery workflow. */
  historyEvents: Record<string, number>;
  /** The relay claim's plan at `explainAt` pending rows (first row only). */
  relayPlan?: string[];
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

export async function deliveryCapacity(opts: {
  n: number;
  rows?: typeof ROWS;
  log: (msg: string) => void;
  /** EXPLAIN ANALYZE the relay's claim at this many pending rows (after the first row). */
  explainAt?: number;
}): Promise<RowResult[]> {
  const api = await import('../test/support/api.js');
  const { startReceiver } = await import('../test/support/receiver.js');
  const out: RowResult[] = [];
  for (const row of opts.rows ?? ROWS) {
    // The services inherit the bench's environment: a row's variables apply to its stack only.
    Object.assign(process.env, row.env);
    const { info, stop: teardown } = await startStack(row.options);
    for (const k of Object.keys(row.env ?? {})) delete process.env[k];
    api.useStack(info);
    try {
      opts.log(`deliveries: ${row.name}`);
      const pids = (await (await fetch(`${info.controlUrl}/pids`, { method: 'POST' })).json()) as Record<
        string,
        number | null
      >;
      const t = await api.newTenant('deliveries');
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
      // The profiles, analysed before anything is measured.
      for (let i = 0; i < opts.n; i += 1000) {
        const users = Array.from({ length: Math.min(1000, opts.n - i) }, (_, j) => ({
          user_id: `d-${i + j}`,
          text: `Order ${i + j} arrived on time, thanks.`,
        }));
        const r = await api.call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
        await api.waitForBatch(r.body.source_id, 900_000);
      }
      const rx = await startReceiver();
      await api.call('POST', `${base}/webhooks`, { key: t.key, body: { url: rx.url } });
      await api.call('POST', `${base}/segments`, {
        key: t.key,
        body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
      });

      // Another tenant submitting batch after batch while the fan-out runs.
      let ingesting = row.ingestBeside;
      let ingested = 0;
      const other = row.ingestBeside ? await api.newTenant('ingest') : undefined;
      const beside = (async () => {
        for (let b = 0; ingesting && other; b++) {
          const users = Array.from({ length: 50 }, (_, j) => ({
            user_id: `i-${b}-${j}`,
            text: `The export to CSV keeps failing since the update (${b}/${j}).`,
          }));
          const r = await api.call('POST', '/api/v1/users', {
            key: other.key,
            body: { project_id: other.projectId, users },
          });
          if (r.status === 202) {
            await api.waitForBatch(r.body.source_id, 900_000);
            ingested += 50;
          } else await new Promise((res) => setTimeout(res, 500));
        }
      })();
      if (row.ingestBeside) await new Promise((r) => setTimeout(r, 5_000)); // ingestion under way first

      const cpuBefore = cpuOf(pids);
      const t0 = Date.now();
      await api.call('POST', `${base}/segments/everyone/deploy`, { key: t.key });
      await api.waitFor(`${opts.n} deliveries`, async () => rx.received.length >= opts.n, 1_800_000, 100);
      const t1 = Date.now();
      const cpuAfter = cpuOf(pids);
      ingesting = false;
      const ingestedBeside = ingested;
      await beside;
      await rx.close();

      const seconds = (t1 - t0) / 1000;
      const first = rx.received[0].at;
      const last = rx.received[opts.n - 1].at;
      const cpuSeconds = Object.fromEntries(
        Object.entries(cpuAfter).map(([k, v]) => [k, Math.round((v - (cpuBefore[k] ?? 0)) * 100) / 100]),
      );
      const [limitName, limitCpu] = Object.entries(cpuSeconds).sort((a, b) => b[1] - a[1])[0];
      const total = Object.values(cpuSeconds).reduce((a, b) => a + b, 0);
      const { latencies, historyEvents } = await api.withDb(async (db: pg.Client) => {
        const { rows } = await db.query(
          `SELECT id, extract(epoch FROM created_at) * 1000 AS at FROM events WHERE project_id = $1`,
          [t.projectId],
        );
        const created = new Map(rows.map((r) => [String(r.id), Number(r.at)]));
        const lat = rx.received
          .map((r) => r.at - (created.get(String(r.headers['x-event-id'])) ?? NaN))
          .filter((x) => Number.isFinite(x));
        const { rows: wf } = await db.query(
          `SELECT workflow_id FROM outbox o JOIN events e ON e.id = o.event_id WHERE e.project_id = $1 LIMIT 1`,
          [t.projectId],
        );
        return { latencies: lat, historyEvents: await countHistory(info, wf[0]?.workflow_id) };
      });
      out.push({
        row: row.name,
        events: opts.n,
        deliveriesPerSecond: Math.round(((opts.n - 1) * 1000 * 10) / (last - first)) / 10,
        latencyMs: { p50: Math.round(pct(latencies, 50)), p99: Math.round(pct(latencies, 99)) },
        cpuSeconds,
        limit: { process: limitName, coreShare: Math.round((limitCpu / seconds) * 100) / 100 },
        machineShare: Math.round((total / seconds / os.cpus().length) * 100) / 100,
        cpuMsPerDelivery: Math.round((total * 1000) / opts.n),
        ...(row.ingestBeside && { ingestedBeside }),
        historyEvents,
      });
      opts.log(JSON.stringify(out[out.length - 1]));
      if (opts.explainAt && out.length === 1) {
        const plan = await relayPlanAt(info.databaseUrl, t.projectId, opts.explainAt);
        out[0].relayPlan = plan;
        opts.log(plan.join('\n'));
      }
    } finally {
      await teardown();
    }
  }
  return out;
}

/**
 * The relay's claim (DISPATCH_SQL) at `pending` undispatched rows for 10 webhooks, with EXPLAIN
 * ANALYZE, inside a transaction that is rolled back (nothing is dispatched).
 */
export async function relayPlanAt(databaseUrl: string, projectId: number, pending: number): Promise<string[]> {
  const { DISPATCH_SQL } = await import('../src/outbox/delivery-admission.js');
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query('BEGIN');
    const [{ pipeline_id }] = (
      await c.query('SELECT id AS pipeline_id FROM pipelines WHERE project_id = $1 LIMIT 1', [projectId])
    ).rows;
    const hooks = (
      await c.query(
        `INSERT INTO webhooks (pipeline_id, url, events) SELECT $1, 'https://example.com/' || g, '{user_added}'
           FROM generate_series(1, 10) g RETURNING id`,
        [pipeline_id],
      )
    ).rows.map((r) => r.id as number);
    await c.query(
      `WITH e AS (
         INSERT INTO events (project_id, pipeline_id, segment_slug, segment_name, user_id, event_type, score, seq)
         SELECT $1, $2, '', '', '', 'ping', 0, 0 FROM generate_series(1, $4::int) RETURNING id
       )
       INSERT INTO outbox (event_id, webhook_id) SELECT e.id, ($3::bigint[])[1 + e.id % 10] FROM e`,
      [projectId, pipeline_id, hooks, pending],
    );
    await c.query('ANALYZE outbox; ANALYZE events');
    const sql = DISPATCH_SQL.replace(
      /\?/g,
      (() => {
        let i = 0;
        return () => `$${++i}`;
      })(),
    );
    const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, [8, 32]);
    return plan.rows.map((r) => r['QUERY PLAN'] as string);
  } finally {
    await c.query('ROLLBACK').catch(() => undefined);
    await c.end();
  }
}

/** The event types of one delivery workflow's history, counted: the Temporal work per delivery. */
async function countHistory(info: StackInfo, workflowId: string | undefined): Promise<Record<string, number>> {
  if (!workflowId) return {};
  const { Connection, Client } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: info.temporalAddress });
  try {
    const client = new Client({ connection });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const counts: Record<string, number> = {};
    for (const e of history.events ?? []) {
      const name = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as never)[k]);
      if (name) counts[name.replace(/EventAttributes$/, '')] = (counts[name.replace(/EventAttributes$/, '')] ?? 0) + 1;
    }
    return counts;
  } finally {
    await connection.close();
  }
}
