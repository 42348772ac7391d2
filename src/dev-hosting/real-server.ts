import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { resolveTemporalBinaries, TEMPORAL_SERVER_VERSION } from './temporal-binaries.js';
import { reapStale, spawnOwned } from './owned-process.js';
import { registerNamespace } from '../temporal/namespace.js';
import type { SearchAttributeType } from '../temporal/search-attributes.js';

const run = promisify(execFile);

/** The server's ports: the frontend is what clients use; the rest are its services talking among themselves. */
export interface ServerPorts {
  frontend: number;
  http: number;
  history: number;
  matching: number;
  worker: number;
  /** Membership (ringpop) ports of frontend, history, matching and worker. */
  membership: [number, number, number, number];
  /** Prometheus metrics of the server. */
  metrics: number;
}

/**
 * From a base port: base..base+9. 7300 does not clash with the dev server (7233, UI 8233). The
 * membership ports must stay below 32768 (the server keeps them in a smallint column).
 */
export function portsFrom(base: number): ServerPorts {
  return {
    frontend: base,
    http: base + 1,
    history: base + 2,
    matching: base + 3,
    worker: base + 4,
    membership: [base + 5, base + 6, base + 7, base + 8],
    metrics: base + 9,
  };
}

export interface RealServerOptions {
  /** The service's PostgreSQL: the server gets databases and a role of its own on the same server. */
  databaseUrl: string;
  /** Its databases are `<database>` and `<database>_visibility` (default temporal). */
  database?: string;
  /** Its role (default temporal); the password is generated once and kept in dataDir. */
  role?: string;
  /** Config, pidfile, password and log live here. */
  dataDir: string;
  ports: ServerPorts;
  namespace: string;
  searchAttributes: Record<string, SearchAttributeType>;
  /** Fixed when its databases are created (see docs/operations.md). */
  historyShards?: number;
  log: (msg: string) => void;
}

export interface RealServer {
  address: string;
  pid: number;
  logFile: string;
  stop(): Promise<void>;
  /** Starts it again after stop() (same databases, ports and config). */
  start(): Promise<void>;
}

const IDENT = /^[a-z_][a-z0-9_]{0,50}$/;

/**
 * Runs the real Temporal server (frontend, history, matching and worker services in one process)
 * on PostgreSQL: builds it once, creates or migrates its own databases and role, writes its
 * config, starts it, and registers the namespace and our search attributes. The process dies with
 * ours (owned-process.ts).
 */
export async function startRealTemporalServer(opts: RealServerOptions): Promise<RealServer> {
  const database = opts.database ?? 'temporal';
  const role = opts.role ?? 'temporal';
  for (const [what, name] of [
    ['database', database],
    ['role', role],
  ])
    if (!IDENT.test(name)) throw new Error(`Temporal ${what} name "${name}" must be a lower-case SQL identifier`);
  const serviceDb = decodeURIComponent(new URL(opts.databaseUrl).pathname.slice(1));
  if (serviceDb === database || serviceDb === `${database}_visibility`)
    throw new Error(`Temporal must not share the service's database "${serviceDb}": choose another --database`);

  // The membership table stores ports as smallint.
  if (opts.ports.membership.some((p) => p >= 32768))
    throw new Error(`Temporal membership ports must be below 32768 (got ${opts.ports.membership.join(', ')})`);
  const { server, sqlTool } = await resolveTemporalBinaries({ log: opts.log });
  mkdirSync(opts.dataDir, { recursive: true });
  const password = rolePassword(opts.dataDir);
  const started = Date.now();
  await prepareDatabases({ ...opts, database, role, password, sqlTool });
  opts.log(`Temporal databases ${database} and ${database}_visibility ready (${Date.now() - started} ms)`);

  const configDir = path.join(opts.dataDir, 'config');
  const logFile = path.join(opts.dataDir, 'temporal-server.log');
  writeConfig(configDir, logFile, { ...opts, database, role, password });
  const pidFile = path.join(opts.dataDir, 'temporal-server.pid');
  const args = ['--root', opts.dataDir, '--config', 'config', '--env', 'profiling', '--allow-no-auth', 'start'];
  const address = `127.0.0.1:${opts.ports.frontend}`;

  let proc: ReturnType<typeof spawnOwned> | undefined;
  const start = async () => {
    await reapStale(pidFile, (cmdline) => cmdline.includes(server) && cmdline.includes(opts.dataDir), opts.log);
    const p = spawnOwned(server, args, pidFile, opts.dataDir);
    proc = p;
    const exited = new Promise<never>((_, reject) =>
      p.child.once('exit', (code) =>
        reject(new Error(`the Temporal server exited (${code}); see ${logFile}: ${p.stderrTail()}`)),
      ),
    );
    exited.catch(() => undefined);
    try {
      await Promise.race([registerNamespace(address, opts.namespace, opts.searchAttributes, 90_000), exited]);
    } catch (err) {
      await p.stop();
      throw err;
    }
  };
  const t0 = Date.now();
  await start();
  opts.log(`Temporal server ${TEMPORAL_SERVER_VERSION} on ${address} (ready in ${Date.now() - t0} ms, log ${logFile})`);
  return {
    address,
    get pid() {
      return proc!.child.pid!;
    },
    logFile,
    async stop() {
      await proc?.stop();
    },
    async start() {
      if (proc && proc.child.exitCode === null && proc.child.signalCode === null) return;
      await start();
    },
  };
}

function rolePassword(dir: string): string {
  const file = path.join(dir, 'db-password');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(18).toString('base64url'), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * Creates the role and both databases when missing, then brings their schemas to the version this
 * server needs with the sql tool (its schemas are embedded): setup once, update always (a no-op
 * when current). The admin connection is DATABASE_URL's user, which needs CREATEROLE and CREATEDB.
 */
async function prepareDatabases(o: {
  databaseUrl: string;
  database: string;
  role: string;
  password: string;
  sqlTool: string;
  log: (msg: string) => void;
}): Promise<void> {
  const admin = new pg.Client({ connectionString: o.databaseUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [o.role]);
    const verb = exists.rowCount ? 'ALTER' : 'CREATE';
    await admin.query(`${verb} ROLE ${o.role} LOGIN PASSWORD ${admin.escapeLiteral(o.password)}`);
    for (const db of [o.database, `${o.database}_visibility`]) {
      const has = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]);
      if (!has.rowCount) {
        await admin.query(`CREATE DATABASE ${db} OWNER ${o.role}`);
        o.log(`created database ${db} owned by ${o.role}`);
      }
    }
  } catch (err) {
    throw new Error(
      `could not prepare Temporal's role and databases (DATABASE_URL's user needs CREATEROLE and CREATEDB): ${(err as Error).message}`,
    );
  } finally {
    await admin.end();
  }
  const url = new URL(o.databaseUrl);
  const connection = [
    '--plugin',
    'postgres12',
    '--ep',
    url.hostname || '127.0.0.1',
    '--port',
    url.port || '5432',
    '--user',
    o.role,
    '--password',
    o.password,
  ];
  for (const [db, schema] of [
    [o.database, 'postgresql/v12/temporal'],
    [`${o.database}_visibility`, 'postgresql/v12/visibility'],
  ]) {
    const c = new pg.Client({ connectionString: withDatabase(o.databaseUrl, db) });
    await c.connect();
    const fresh = await c
      .query("SELECT to_regclass('schema_version') IS NULL AS fresh")
      .then((r) => r.rows[0].fresh as boolean)
      .finally(() => c.end());
    const tool = (args: string[]) => run(o.sqlTool, [...connection, '--db', db, ...args], { maxBuffer: 8 << 20 });
    if (fresh) await tool(['setup-schema', '-v', '0.0']);
    await tool(['update-schema', '--schema-name', schema]);
  }
}

function withDatabase(databaseUrl: string, db: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${db}`;
  return url.toString();
}

/**
 * The server's static config (JSON is YAML) and its dynamic config. Only what differs from the
 * server's defaults is written; the dynamic values are the ones the dev server gets too.
 */
function writeConfig(
  dir: string,
  logFile: string,
  o: RealServerOptions & { database: string; role: string; password: string },
): void {
  mkdirSync(dir, { recursive: true });
  const url = new URL(o.databaseUrl);
  const sql = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${url.hostname || '127.0.0.1'}:${url.port || '5432'}`,
      connectProtocol: 'tcp',
      user: o.role,
      password: o.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra: object = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  const p = o.ports;
  const config = {
    log: { stdout: false, outputFile: logFile, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: o.historyShards ?? 4,
      datastores: { default: sql(o.database, 20), visibility: sql(`${o.database}_visibility`, 10) },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: { prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${p.metrics}` } },
    },
    services: {
      frontend: service(p.frontend, p.membership[0], { httpPort: p.http }),
      history: service(p.history, p.membership[1]),
      matching: service(p.matching, p.membership[2]),
      worker: service(p.worker, p.membership[3]),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${p.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: path.join(dir, 'dynamic.yaml'), pollInterval: '10s' },
  };
  const dynamic = Object.fromEntries(
    Object.entries(DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value, constraints: {} }]]),
  );
  writeFileSync(path.join(dir, 'profiling.yaml'), JSON.stringify(config, null, 2), { mode: 0o600 });
  writeFileSync(path.join(dir, 'dynamic.yaml'), JSON.stringify(dynamic, null, 2));
}

/** Dynamic config of the server we run (docker/dynamicconfig.yaml carries the same values). */
export const DYNAMIC_CONFIG: Record<string, unknown> = {
  // Tasks handed out round-robin between fairness keys (our tenants), not first come, first served.
  'matching.enableFairness': true,
  // A workflow task's completion hands its activity straight back to the worker that asked.
  'system.enableActivityEagerExecution': true,
  // A namespace registered at start is usable in seconds, not after the default 10 s refresh.
  'system.namespaceCacheRefreshInterval': '2s',
  // Search attributes registered at start are seen at once.
  'system.forceSearchAttributesCacheRefreshOnRead': true,
};
