import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type InjectedSinks } from '@temporalio/worker';
import { startRealTemporalServer } from '../src/dev-hosting/real-server.js';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes.js';
import { freePort, membershipPorts } from '../src/free-port.js';
import { startTestDatabase } from '../test/support/test-database.js';
import { cpuSeconds } from './procs.js';
import type { FloorSinks } from './floor/workflows.js';

/**
 * The floor under delivery capacity on this machine (issue 25): the real Temporal server on
 * PostgreSQL running workflows that do nothing (no HTTP, no rows of ours), started 50 at a time as
 * the relay starts deliveries. Whatever a delivery does, it costs at least this much CPU, so
 * cores / (CPU per workflow) bounds deliveries/s on this box for one workflow per event.
 */
export interface FloorRow {
  workflow: string;
  shards: number;
  workflows: number;
  perSecond: number;
  cpuMsPerWorkflow: number;
  cpuSeconds: Record<string, number>;
  /** Workflows per second this machine could run if nothing else used its cores. */
  ceilingPerSecond: number;
}

export async function temporalFloor(opts: { n: number; log: (m: string) => void }): Promise<FloorRow[]> {
  // The server's history shards (STACK_TEMPORAL_SHARDS, as the test stack reads it; default 4).
  const shards = Number(process.env.STACK_TEMPORAL_SHARDS ?? 4);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floor-'));
  const database = await startTestDatabase(path.join(dir, 'pg'), {});
  const dbName = `temporal_floor_${process.pid}`;
  const server = await startRealTemporalServer({
    databaseUrl: database.url,
    database: dbName,
    role: 'temporal_floor',
    dataDir: path.join(dir, 'temporal'),
    ports: {
      frontend: await freePort(),
      http: await freePort(),
      history: await freePort(),
      matching: await freePort(),
      worker: await freePort(),
      membership: await membershipPorts(),
      metrics: await freePort(),
    },
    namespace: 'default',
    searchAttributes: SEARCH_ATTRIBUTES,
    historyShards: shards,
    log: () => undefined,
  });
  const out: FloorRow[] = [];
  let done = 0;
  const sinks: InjectedSinks<FloorSinks> = { floor: { done: { fn: () => void done++, callDuringReplay: false } } };
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const taskQueue = 'floor';
  const worker = await Worker.create({
    connection: native,
    taskQueue,
    workflowsPath: fileURLToPath(new URL('./floor/workflows.ts', import.meta.url)),
    activities: { noop: async () => undefined },
    sinks,
    maxConcurrentWorkflowTaskExecutions: 32,
  });
  const running = worker.run();
  try {
    for (const workflow of ['emptyWorkflow', 'localActivityWorkflow']) {
      // A few first, so the worker's bundle and the server's caches are warm.
      await runMany(client, workflow, taskQueue, 50, () => done);
      done = 0;
      const before = cpuSeconds({});
      const cpuBench = process.cpuUsage();
      const t0 = Date.now();
      await runMany(client, workflow, taskQueue, opts.n, () => done);
      const seconds = (Date.now() - t0) / 1000;
      const used = process.cpuUsage(cpuBench);
      const after = cpuSeconds({});
      const cpu: Record<string, number> = {
        postgres: Math.round((after.postgres - before.postgres) * 100) / 100,
        temporal: Math.round((after.temporal - before.temporal) * 100) / 100,
        'bench (client + worker)': Math.round(((used.user + used.system) / 1e6) * 100) / 100,
      };
      const total = Object.values(cpu).reduce((a, b) => a + b, 0);
      const row: FloorRow = {
        workflow,
        shards,
        workflows: opts.n,
        perSecond: Math.round((opts.n / seconds) * 10) / 10,
        cpuMsPerWorkflow: Math.round(((total * 1000) / opts.n) * 10) / 10,
        cpuSeconds: cpu,
        ceilingPerSecond: Math.round((os.cpus().length * opts.n) / total),
      };
      out.push(row);
      opts.log(JSON.stringify(row));
      done = 0;
    }
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await native.close();
    await connection.close();
    await server.stop();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    for (const db of [dbName, `${dbName}_visibility`]) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await admin.end();
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** Starts n workflows, at most 50 starts at once, and waits until the worker saw all n complete. */
async function runMany(client: Client, workflow: string, taskQueue: string, n: number, completed: () => number) {
  let next = 0;
  const stamp = Date.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < n) {
        const i = next++;
        await client.workflow.start(workflow, { taskQueue, workflowId: `floor-${workflow}-${stamp}-${i}`, args: [] });
      }
    }),
  );
  while (completed() < n) await new Promise((r) => setTimeout(r, 20));
}
