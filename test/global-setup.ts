import http from 'node:http';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { resolveTemporalCli } from '../src/temporal/cli-binary.js';
import { startTemporalDevServer } from '../src/temporal/dev-server.js';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes.js';
import { makeCerts } from './support/certs.js';
import { freePort } from '../src/free-port.js';
import { spawnService, type ServiceProcess } from './support/service-process.js';
import type { StackInfo } from './support/stack-info.js';

/**
 * Starts the real stack once for the whole run: PostgreSQL (DATABASE_URL's server, or the
 * embedded one), a Temporal dev server (TEMPORAL_ADDRESS, or the cached CLI), and the service as
 * two real processes (api and worker). A small control server lets tests kill and restart the
 * worker, like an operator would.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'profiling-test-'));
  // The embedded PostgreSQL runs as the postgres user when we are root: it must reach its folder.
  chmodSync(dir, 0o755);
  const stops: (() => Promise<unknown>)[] = [];

  let databaseUrl: string;
  if (process.env.DATABASE_URL) {
    const name = `profiling_test_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    stops.push(async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    });
  } else {
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg') });
    databaseUrl = embedded.url;
    stops.push(embedded.stop);
  }

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  let temporalUi = '';
  if (!temporalAddress) {
    const cliPath = await resolveTemporalCli({ cliPath: process.env.TEMPORAL_CLI_PATH });
    const dev = await startTemporalDevServer({
      cliPath,
      dataDir: dir,
      port: await freePort(),
      uiPort: await freePort(),
      searchAttributes: SEARCH_ATTRIBUTES,
    });
    temporalAddress = dev.address;
    temporalUi = dev.uiUrl;
    stops.push(dev.stop);
  }

  const certs = makeCerts(dir);
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: `profiling-test-${process.pid}`,
    PORT: String(httpPort),
    GRPC_PORT: String(grpcPort),
    HOST: '127.0.0.1',
    ADMIN_TOKEN: 'test-admin-token-0123456789',
    SECRETS_KEY: 'ab'.repeat(32),
    // Seconds instead of minutes so retries are observable in a test; the default schedule is checked as data.
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,2s,2s,2s',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    NODE_EXTRA_CA_CERTS: certs.caPath,
    DATA_DIR: path.join(dir, 'service-data'),
    LOG_LEVEL: 'info',
  };
  const logs = { api: path.join(dir, 'api.log'), worker: path.join(dir, 'worker.log') };
  const kill = async (p: ServiceProcess) => {
    if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    await p.exited;
  };
  let api = spawnService('api', env, logs.api);
  let worker = spawnService('worker', env, logs.worker);
  try {
    await Promise.all([api.ready, worker.ready]);
  } catch (err) {
    // Leave nothing running behind a failed start.
    await Promise.all([kill(api), kill(worker)]);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
  const control = http.createServer((req, res) => {
    const done = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const action = async () => {
      if (req.url === '/pids') return { api: api.proc.pid, worker: worker.proc.pid };
      if (req.url === '/worker/kill') await kill(worker);
      else if (req.url === '/worker/start') {
        if (worker.proc.exitCode === null && worker.proc.signalCode === null) return { already: true };
        worker = spawnService('worker', env, logs.worker);
        await worker.ready;
      } else if (req.url === '/api/restart') {
        await kill(api);
        api = spawnService('api', env, logs.api);
        await api.ready;
      } else throw new Error('unknown control action');
      return { ok: true };
    };
    action().then((b) => done(200, b), (err: Error) => done(500, { error: err.message }));
  });
  const controlPort = await freePort();
  await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve));

  const info: StackInfo = {
    gatewayUrl: `http://127.0.0.1:${httpPort}`,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    adminToken: env.ADMIN_TOKEN,
    databaseUrl,
    temporalAddress,
    temporalUi,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    certPem: certs.certPem,
    keyPem: certs.keyPem,
    logs,
    retryScheduleMs: [1000, 2000, 2000, 2000, 2000],
  };
  project.provide('stack', info);

  return async () => {
    control.close();
    await Promise.all([kill(api), kill(worker)]);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
}
