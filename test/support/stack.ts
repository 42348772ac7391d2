import http from 'node:http';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';
import { startTemporalDevServer, type DevServer } from '../../src/dev-hosting/dev-server.js';
import { startRealTemporalServer } from '../../src/dev-hosting/real-server.js';
import pg from 'pg';
import { startBalancer } from './balancer.js';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes.js';
import { makeCerts } from './certs.js';
import { freePort, membershipPorts } from '../../src/free-port.js';
import { spawnService, waitForLogLine, type ServiceProcess } from './service-process.js';
import { STACK_SECRETS_KEY, type StackInfo } from './stack-info.js';
import { startTestDatabase, type Restartable } from './test-database.js';

export interface StackOptions {
  /**
   * Always run our own embedded PostgreSQL and Temporal dev server, even when DATABASE_URL or
   * TEMPORAL_ADDRESS is set, so that the control server can stop and start them (the chaos suite).
   */
  ownInfrastructure?: boolean;
  /**
   * `dev` (default): the Temporal dev server, one api and one worker process. `cluster`: the
   * topology users scale out to: the real Temporal server on PostgreSQL, two api processes behind a
   * round-robin balancer, an analysis worker and a delivery worker (`worker2` is a second delivery
   * worker). STACK_TOPOLOGY=cluster chooses it for a bench.
   */
  topology?: 'dev' | 'cluster';
  /** Parts of the topology on their own, for the bench's rows (they default from `topology`). */
  temporal?: 'dev' | 'real';
  workers?: 'one' | 'split';
  apis?: 1 | 2;
  /**
   * The workers read the analysis heads when they start: a test run trains them meanwhile
   * (test/global-setup-heads.ts), so PostgreSQL, Temporal and the api start first and the workers
   * when this settles (a rejection stops what started and fails the stack).
   */
  workersAfter?: Promise<unknown>;
}

/**
 * Starts the real stack once for the whole run: PostgreSQL (DATABASE_URL's server, or the
 * embedded one), a Temporal dev server (TEMPORAL_ADDRESS, or the cached CLI), and the service as
 * two real processes (api and worker). A small control server lets tests kill and restart the
 * worker, like an operator would; with our own infrastructure it also stops and starts PostgreSQL
 * and Temporal, and runs a second worker.
 */
export async function startStack(opts: StackOptions = {}): Promise<{ info: StackInfo; stop: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'profiling-test-'));
  // The embedded PostgreSQL runs as the postgres user when we are root: it must reach its folder.
  chmodSync(dir, 0o755);
  const stops: (() => Promise<unknown>)[] = [];

  const database = await startTestDatabase(path.join(dir, 'pg'), { own: opts.ownInfrastructure });
  const databaseUrl = database.url;
  const postgres = database.postgres;
  stops.push(() => database.stop());

  const cluster = (opts.topology ?? process.env.STACK_TOPOLOGY) === 'cluster';
  const realTemporal = (opts.temporal ?? (cluster ? 'real' : 'dev')) === 'real';
  const split = (opts.workers ?? (cluster ? 'split' : 'one')) === 'split';
  const twoApis = (opts.apis ?? (cluster ? 2 : 1)) === 2;
  let temporalAddress = opts.ownInfrastructure || realTemporal ? undefined : process.env.TEMPORAL_ADDRESS;
  let temporalUi = '';
  let temporal: Restartable | undefined;
  if (realTemporal) {
    // Databases of its own on the test database's server, dropped at the end.
    const database = `temporal_test_${process.pid}_${Date.now()}`;
    const real = await startRealTemporalServer({
      databaseUrl,
      database,
      role: 'temporal_test',
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
      // STACK_TEMPORAL_SHARDS: the real server's history shards (fixed when its databases are
      // created; 4 by default, as `npm run temporal:server`), for a bench comparing them.
      historyShards: process.env.STACK_TEMPORAL_SHARDS ? Number(process.env.STACK_TEMPORAL_SHARDS) : undefined,
      log: () => undefined,
    }).catch(async (err: unknown) => {
      // Leave nothing behind a failed start (the test database).
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
      throw err;
    });
    temporalAddress = real.address;
    temporal = real;
    stops.push(async () => {
      await real.stop();
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      for (const db of [database, `${database}_visibility`])
        await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.end();
    });
  } else if (!temporalAddress) {
    const cliPath = await resolveTemporalCli();
    // Same SQLite file and ports on every start, so a stopped server comes back with its state.
    const devOptions = {
      cliPath,
      dataDir: dir,
      port: await freePort(),
      uiPort: await freePort(),
      searchAttributes: SEARCH_ATTRIBUTES,
    };
    let dev: DevServer | undefined = await startTemporalDevServer(devOptions);
    temporalAddress = dev.address;
    temporalUi = dev.uiUrl;
    temporal = {
      async stop() {
        await dev?.stop();
        dev = undefined;
      },
      async start() {
        dev ??= await startTemporalDevServer(devOptions);
      },
    };
    stops.push(() => temporal!.stop());
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
    SECRETS_KEY: STACK_SECRETS_KEY,
    // The cluster is six processes and a Temporal server on one PostgreSQL (100 connections by
    // default): smaller api pools keep them under it (workers size theirs from their slots).
    ...(cluster && { DATABASE_POOL_MAX: process.env.DATABASE_POOL_MAX ?? '10' }),
    // Seconds instead of minutes so retries are observable in a test; the default schedule is checked as data.
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,2s,2s,2s',
    // A stalled request answered 408 after 10 s instead of 30 (connections.test.ts waits for it).
    HTTP_REQUEST_TIMEOUT_MS: '10000',
    // A retention sweep twice a second, so a test sees one without waiting a minute.
    RETENTION_SWEEP_INTERVAL_MS: '500',
    // The bench's fairness scenario runs with the production timeout (10 s); tests keep it short.
    WEBHOOK_TIMEOUT_MS: process.env.STACK_WEBHOOK_TIMEOUT_MS ?? '3000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Every test client is 127.0.0.1: bad-key tests must not trip the limiter (auth-rate-limit.test.ts runs its own api).
    AUTH_FAILURE_LIMIT: '1000000',
    NODE_EXTRA_CA_CERTS: certs.caPath,
    DATA_DIR: path.join(dir, 'service-data'),
    LOG_LEVEL: 'info',
  };
  // The second api process of the cluster listens on ports of its own; clients reach both through the balancer.
  const env2: Record<string, string> = { ...env, PORT: String(await freePort()), GRPC_PORT: String(await freePort()) };
  const logs = {
    api: path.join(dir, 'api.log'),
    worker: path.join(dir, 'worker.log'),
    worker2: path.join(dir, 'worker2.log'),
    ...(twoApis && { api2: path.join(dir, 'api2.log') }),
    ...(split && { deliveryWorker: path.join(dir, 'delivery-worker.log') }),
  };
  const alive = (p: ServiceProcess | undefined): p is ServiceProcess =>
    !!p && p.proc.exitCode === null && p.proc.signalCode === null;
  const kill = async (p: ServiceProcess | undefined) => {
    if (!p) return;
    if (alive(p)) p.proc.kill('SIGKILL');
    await p.exited;
  };
  const workerRole = split ? 'analysis-worker' : 'worker';
  // Each worker process its own metrics port, the same across restarts (tests scrape them).
  const metricsPorts = { worker: await freePort(), worker2: await freePort(), deliveryWorker: await freePort() };
  // Each worker's database sessions are named after it (`profiling-worker`, ...): a test that kills
  // it waits for them to end (test/support/worker-death.ts).
  const metricsEnv = (p: keyof typeof metricsPorts) => ({
    ...env,
    METRICS_PORT: String(metricsPorts[p]),
    PGAPPNAME: `profiling-${p}`,
  });
  const spawnWorker = () => spawnService(workerRole, metricsEnv('worker'), logs.worker);
  const spawnApi2 = () => (twoApis ? spawnService('api', env2, logs.api2!) : undefined);
  const spawnDeliveryWorker = () =>
    split ? spawnService('delivery-worker', metricsEnv('deliveryWorker'), logs.deliveryWorker!) : undefined;
  let api = spawnService('api', env, logs.api);
  let api2 = spawnApi2();
  try {
    await opts.workersAfter;
  } catch (err) {
    await Promise.all([kill(api), kill(api2)]);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
  let worker = spawnWorker();
  let deliveryWorker = spawnDeliveryWorker();
  let worker2: ServiceProcess | undefined;
  const ready = (...ps: (ServiceProcess | undefined)[]) => Promise.all(ps.map((p) => p?.ready));
  try {
    await ready(api, api2, worker, deliveryWorker);
    await waitForLogLine(logs.worker, '"msg":"analyzer ready"', 900_000);
  } catch (err) {
    // Leave nothing running behind a failed start.
    await Promise.all([kill(api), kill(api2), kill(worker), kill(deliveryWorker)]);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
  const balancers = twoApis
    ? await Promise.all([
        startBalancer([httpPort, Number(env2.PORT)]),
        startBalancer([grpcPort, Number(env2.GRPC_PORT)]),
      ])
    : undefined;
  const owned = (what: string, r: Restartable | undefined): Restartable => {
    if (!r) throw new Error(`${what} is external (set by the environment); it cannot be stopped from here`);
    return r;
  };
  const actions: Record<string, () => Promise<unknown>> = {
    '/pids': async () => ({
      api: api.proc.pid,
      worker: worker.proc.pid,
      worker2: alive(worker2) ? worker2.proc.pid : null,
      api2: api2?.proc.pid ?? null,
      deliveryWorker: deliveryWorker?.proc.pid ?? null,
    }),
    // "The worker" is every worker process of the topology: in the cluster, analysis and delivery.
    '/worker/kill': () => Promise.all([kill(worker), kill(deliveryWorker)]),
    '/worker/start': async () => {
      if (!alive(worker)) worker = spawnWorker();
      if (split && !alive(deliveryWorker)) deliveryWorker = spawnDeliveryWorker();
      await ready(worker, deliveryWorker);
    },
    // A second worker on the same task queues and database (in the cluster, a second delivery worker).
    '/worker2/kill': () => kill(worker2),
    '/worker2/start': async () => {
      if (alive(worker2)) return { already: true };
      worker2 = spawnService(split ? 'delivery-worker' : 'worker', metricsEnv('worker2'), logs.worker2);
      await worker2.ready;
    },
    '/api/restart': async () => {
      await Promise.all([kill(api), kill(api2)]);
      api = spawnService('api', env, logs.api);
      api2 = spawnApi2();
      await ready(api, api2);
    },
    '/temporal/stop': () => owned('Temporal', temporal).stop(),
    '/temporal/start': () => owned('Temporal', temporal).start(),
    '/postgres/stop': () => owned('PostgreSQL', postgres).stop(),
    '/postgres/start': () => owned('PostgreSQL', postgres).start(),
  };
  const control = http.createServer((req, res) => {
    const done = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const action = actions[req.url ?? ''];
    if (!action) return done(500, { error: 'unknown control action' });
    action().then(
      (b) => done(200, b ?? { ok: true }),
      (err: Error) => done(500, { error: err.message }),
    );
  });
  const controlPort = await freePort();
  await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve));

  const info: StackInfo = {
    gatewayUrl: `http://127.0.0.1:${balancers ? balancers[0].port : httpPort}`,
    grpcAddress: `127.0.0.1:${balancers ? balancers[1].port : grpcPort}`,
    topology: cluster ? 'cluster' : 'dev',
    controlUrl: `http://127.0.0.1:${controlPort}`,
    adminToken: env.ADMIN_TOKEN,
    databaseUrl,
    temporalAddress,
    temporalUi,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    caPath: certs.caPath,
    certPem: certs.certPem,
    keyPem: certs.keyPem,
    logs,
    metricsUrls: {
      worker: `http://127.0.0.1:${metricsPorts.worker}/metrics`,
      worker2: `http://127.0.0.1:${metricsPorts.worker2}/metrics`,
      ...(split && { deliveryWorker: `http://127.0.0.1:${metricsPorts.deliveryWorker}/metrics` }),
    },
    retryScheduleMs: [1000, 2000, 2000, 2000, 2000],
  };
  const stop = async () => {
    control.close();
    // A profiled run (SERVICE_NODE_ARGS) stops gracefully so the profiles get written.
    const stop = async (p: ServiceProcess | undefined) => {
      if (process.env.SERVICE_NODE_ARGS && p && alive(p)) {
        p.proc.kill('SIGTERM');
        await Promise.race([p.exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      await kill(p);
    };
    for (const b of balancers ?? []) await b.close();
    await Promise.all([stop(api), stop(api2), stop(worker), stop(deliveryWorker), stop(worker2)]);
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    // STACK_KEEP_LOGS=1 keeps the api's and the workers' logs of a run (a bench's, to read where time went).
    if (process.env.STACK_KEEP_LOGS === '1') {
      const kept = mkdtempSync(path.join(os.tmpdir(), 'profiling-logs-'));
      for (const [name, file] of Object.entries(logs))
        if (existsSync(file)) copyFileSync(file, path.join(kept, `${name}.log`));
      console.log(`logs kept in ${kept}`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { info, stop };
}
