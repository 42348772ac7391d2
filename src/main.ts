import os from 'node:os';
import exitHook from 'async-exit-hook';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, ROLES, type Config, type Role } from './config.js';
import { createLogger } from './observability/logger.js';
import { createDb } from './db/knex.js';
import { migrateLatest } from './db/migrate.js';
import { startEmbeddedPostgres } from './dev-hosting/embedded-postgres.js';
import { UnreachableError } from './db/reachable.js';
import { resolveTemporalCli } from './dev-hosting/temporal-binaries.js';
import { startTemporalDevServer } from './dev-hosting/dev-server.js';
import { SEARCH_ATTRIBUTES } from './temporal/search-attributes.js';
import { createTemporalClient } from './temporal/client.js';
import { watchSearchAttributes } from './temporal/search-attribute-watch.js';
import { createStarters, installationTaskQueue } from './temporal/starters.js';
import { readInstallationId } from './db/installation.js';
import { createSecretBox } from './webhooks/secret-box.js';
import { resealWebhookSecrets } from './webhooks/reseal-secrets.js';
import { createUserHasher } from './user-hash.js';
import { resolveSecretsKeys } from './secrets-key.js';
import { agreeOnSecretsKey, SecretsKeyMismatch } from './secrets-key-agreement.js';
import { ensureDemoTenant } from './demo.js';
import { startApi } from './roles/api.js';
import { startWorkerRole } from './roles/worker.js';
import { workerNice } from './fairness/niceness.js';
import { registerOutboxGauges } from './metrics/outbox.js';
import { MetricsPortInUse, startMetricsServer } from './metrics/server.js';

/** The embedded dev server's UI, on the Temporal CLI's usual port (or a free one when it is taken). */
const DEV_UI_PORT = 8233;

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  throw err;
}
const { values } = parseArgs({ options: { role: { type: 'string' } } });
const role = (values.role ?? config.role) as Role;
if (!ROLES.includes(role)) {
  console.error(`unknown role "${role}": use ${ROLES.join(', ')}`);
  process.exit(2);
}
const queues = {
  analysis: role === 'worker' || role === 'analysis-worker' || role === 'all',
  delivery: role === 'worker' || role === 'delivery-worker' || role === 'all',
};

const log = createLogger(config.logLevel, { role }, config.logFormat);
// Processes that analyse run below everything else on their machine (src/fairness/niceness.ts).
const nice = workerNice(config.fairnessOff);
if ((role === 'worker' || role === 'analysis-worker') && nice > 0) {
  // Before any thread starts (embedder, Temporal core, libuv pool): Linux threads inherit it.
  try {
    os.setPriority(0, nice);
  } catch (err) {
    log.warn('could not lower the worker priority', { err: (err as Error).message });
  }
}
mkdirSync(config.dataDir, { recursive: true });
const stops: (() => Promise<unknown>)[] = [];
let stopping = false;
/** Aborted when a shutdown begins: a start still building or waiting (the Temporal build) ends at once. */
const starting = new AbortController();
/**
 * Settles when the start below has finished or given up. A shutdown waits for it: a start cut
 * short stops at its next step (each step's stop is registered first), so every stop it registered
 * runs, and none is added while they run.
 */
let startSettled: () => void = () => undefined;
const startDone = new Promise<void>((resolve) => (startSettled = resolve));
/** How long a shutdown waits for the start's current step: Ctrl-C stops within 10 s (issue 46). */
const START_STEP_WAIT_MS = 4_000;
/** Between the start's steps: a shutdown under way ends the start here. */
const checkpoint = () => starting.signal.throwIfAborted();
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  starting.abort(new Error('stopping'));
  // A step that does not end by itself soon (a server not answering) is not waited for longer.
  await Promise.race([startDone, new Promise((r) => setTimeout(r, START_STEP_WAIT_MS).unref())]);
  for (const stop of stops) {
    try {
      await stop();
    } catch (err) {
      log.warn('stop step failed', { err: (err as Error).message });
    }
  }
  process.exit(code);
}
// embedded-postgres registers async-exit-hook on import, which answers SIGINT and SIGTERM with
// process.exit(128 + n) on the next tick: the shutdown below was cut off before the gRPC server
// said NOT_SERVING or let its calls finish. This process stops what it started itself (the
// embedded PostgreSQL included, see `stops`), so exactly those two hooks go (the same module
// instance: npm dedupes it). Other listeners stay: run as `tsx src/main.ts` (not `npm start`,
// which runs `node --import tsx`: one process, no parent relaying signals), tsx's own listener
// tells its parent the child handles the signal; without it the parent re-sends the signal and
// then SIGKILLs the child, leaving the embedded PostgreSQL running.
exitHook.unhookEvent('SIGINT');
exitHook.unhookEvent('SIGTERM');
// A second signal ends a shutdown still waiting (the gRPC server lets open calls, a health Watch
// stream included, finish first): Ctrl-C twice always stops.
process.on('SIGINT', () => (stopping ? process.exit(128 + 2) : void shutdown(0)));
process.on('SIGTERM', () => (stopping ? process.exit(128 + 15) : void shutdown(0)));

const started = Date.now();
const lines: string[] = [];
/** Settles once the worker's analysis is ready (roles that analyse): see the banner below. */
let analysisReady: Promise<boolean> | undefined;
/** Whether it has, followed from the moment the worker starts (the heads may be loaded before the banner). */
let analysisUp = false;

try {
  // A worker without the api has its own GET /metrics (the api serves it on the gateway port),
  // bound first so that a taken METRICS_PORT stops the worker before anything else starts.
  if (role !== 'api' && role !== 'all') {
    const metrics = await startMetricsServer(config.metrics, log);
    stops.push(metrics.stop);
    checkpoint();
    lines.push(`metrics:     ${metrics.url}`);
  }
  // 1. PostgreSQL: DATABASE_URL, or a real embedded PostgreSQL in the data folder.
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({ dataDir: config.dataDir, log: (m: string) => log.info(m) });
    stops.push(pg.stop);
    checkpoint();
    databaseUrl = pg.url;
  }
  // The worker's pool is sized from its activity concurrency so activities never starve each other.
  // Deliveries hold a connection only around their HTTP call (to read and to record), so a quarter
  // of their slots is enough; analysis activities may hold one for their whole fold.
  const poolMax =
    role === 'api'
      ? config.databasePoolMax
      : Math.max(
          config.databasePoolMax,
          (queues.analysis ? config.worker.activityConcurrency : 0) +
            (queues.delivery ? Math.ceil(config.worker.deliveryConcurrency / 4) : 0) +
            4,
        );
  const db = createDb(databaseUrl, poolMax);
  stops.unshift(() => db.destroy());
  registerOutboxGauges(db, log);
  const applied = await migrateLatest(db);
  checkpoint();
  if (applied.length) log.info('migrations applied', { applied });
  const installation = await readInstallationId(db);
  // Before anything uses the key: a process whose key cannot read what the installation's key
  // made (suppressions, sealed webhook secrets) stops here with what to set.
  const secretsKeys = resolveSecretsKeys(
    { current: config.secretsKey, previous: config.secretsKeysPrevious },
    config.dataDir,
    log,
  );
  await agreeOnSecretsKey(db, secretsKeys, log);
  checkpoint();
  const taskQueue = installationTaskQueue(config, installation);

  // 2. Temporal: TEMPORAL_ADDRESS, or the dev server (SQLite in the data folder, UI included).
  let temporalAddress = config.temporal.address;
  let uiUrl: string | undefined;
  if (!temporalAddress) {
    const cliPath = await resolveTemporalCli({ log: (m: string) => log.info(m), signal: starting.signal });
    const dev = await startTemporalDevServer({
      cliPath,
      dataDir: config.dataDir,
      port: 7233,
      uiPort: DEV_UI_PORT,
      namespace: config.temporal.namespace,
      searchAttributes: SEARCH_ATTRIBUTES,
      log: (m: string) => log.info(m),
    });
    stops.push(dev.stop);
    checkpoint();
    temporalAddress = dev.address;
    uiUrl = dev.uiUrl;
  }
  const { client, connection } = await createTemporalClient(temporalAddress, config.temporal.namespace);
  stops.unshift(() => connection.close());
  checkpoint();
  // An external server may lack our search attributes, and then refuses every start that sets one:
  // they are registered where it allows, else the reason is logged and the api's readiness says it.
  const searchAttributes = watchSearchAttributes({
    connection,
    namespace: config.temporal.namespace,
    wanted: SEARCH_ATTRIBUTES,
    log,
  });
  stops.unshift(async () => searchAttributes.stop());
  checkpoint();
  const starters = createStarters(client, config, installation, log);
  const box = createSecretBox(secretsKeys.current, secretsKeys.previous);
  if (secretsKeys.previous.length > 0) {
    const resealed = await resealWebhookSecrets(db, box);
    if (resealed > 0) log.info('webhook secrets sealed again under the new SECRETS_KEY', { resealed });
  }

  if (queues.analysis || queues.delivery) {
    const worker = await startWorkerRole({
      config,
      db,
      databaseUrl,
      temporalAddress,
      taskQueue,
      queues,
      starters,
      client,
      box,
      log,
    });
    stops.unshift(worker.stop);
    checkpoint();
    lines.push(`worker:      task queues ${worker.taskQueues.map((q) => `"${q}"`).join(', ')} on ${temporalAddress}`);
    analysisReady = worker.analysisReady;
    void analysisReady?.then((ok) => (analysisUp = ok));
  }
  if (role === 'api' || role === 'all') {
    const userHash = createUserHasher(secretsKeys.current, secretsKeys.previous);
    const api = await startApi({ config, db, databaseUrl, starters, box, userHash, log, client, searchAttributes });
    stops.unshift(api.stop);
    checkpoint();
    lines.push(`gateway:     http://localhost:${api.httpPort}`, `gRPC:        localhost:${api.grpcPort}`);
  }
  if (uiUrl) lines.push(`Temporal UI: ${uiUrl}`);
  if (!config.databaseUrl && (role === 'api' || role === 'all')) {
    const demo = await ensureDemoTenant(db, config.dataDir);
    lines.push(
      `demo tenant: project_id=${demo.project_id} pipeline_id=${demo.pipeline_id}`,
      `demo key:    ${demo.api_key}`,
      `try:         curl -H 'X-API-Key: ${demo.api_key}' http://localhost:${config.http.port}/api/v1/projects`,
    );
  }
  lines.push(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s (Ctrl-C stops everything)`);
  const banner = (extra: string[]) =>
    console.log(`\nSemantic profiling service (${role})\n  ${[...lines, ...extra].join('\n  ')}\n`);
  // The heads load in the background; on a first start they train for minutes, and their progress
  // lines would push the banner out of sight: it says so, and comes again once analysis is ready.
  let saidLoading = false;
  void analysisReady?.then((ok) => {
    if (ok && saidLoading) banner([`analysis:    ready, ${((Date.now() - started) / 1000).toFixed(1)} s after start`]);
  });
  saidLoading = analysisReady !== undefined && !analysisUp;
  banner(
    saidLoading
      ? [
          'analysis:    loading the heads (a first start trains them, with progress lines below; this banner comes again when messages can be analysed)',
        ]
      : [],
  );
  // A container's healthcheck for the roles without a port (docker-compose.yml).
  const readyFile = path.join(config.dataDir, `ready.${role}`);
  writeFileSync(readyFile, String(process.pid));
  stops.unshift(async () => rmSync(readyFile, { force: true }));
  log.info('ready', { ms: Date.now() - started });
  startSettled();
} catch (err) {
  startSettled();
  // A start cut short by Ctrl-C says nothing: the shutdown that cut it is under way.
  if (!starting.signal.aborted) {
    // An environment problem we can explain gets one sentence, not a stack trace.
    if (err instanceof UnreachableError || err instanceof MetricsPortInUse || err instanceof SecretsKeyMismatch)
      console.error(err.message);
    else log.error('start failed', { err });
    await shutdown(1);
  }
}
