import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from './search-attributes.js';
import { freePort, isPortFree } from '../free-port.js';
import { processAlive } from '../process-alive.js';

export interface DevServer {
  address: string;
  /** The dev server's process id (its pidfile holds it too). */
  pid: number;
  uiUrl: string;
  stop(): Promise<void>;
}

/** A configured port must be free (it is printed to the user); an unset one is picked. */
async function pickPort(preferred: number | undefined): Promise<number> {
  if (!preferred) return freePort();
  if (await isPortFree(preferred)) return preferred;
  throw new Error(`port ${preferred} is taken (is another Temporal server running?)`);
}

/**
 * A dev server left running by an earlier run that died without stopping it (SIGKILL, out of
 * memory) holds the ports and the SQLite file. The pidfile names it; it is stopped only if that pid
 * is still a `temporal server start-dev` on OUR database file (a recycled pid is left alone).
 */
async function reapStale(pidFile: string, dbFile: string, log?: (msg: string) => void): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      // Not Linux, or it ended meanwhile: nothing we can prove is ours.
    }
    if (cmdline.includes('start-dev') && cmdline.includes(dbFile)) {
      log?.(`stopping a Temporal dev server left running by an earlier run (pid ${pid})`);
      process.kill(pid, 'SIGTERM');
      for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
      if (processAlive(pid)) process.kill(pid, 'SIGKILL');
      for (let i = 0; i < 50 && processAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }
  rmSync(pidFile, { force: true });
}

/**
 * On Linux the child is started through util-linux's `setpriv --pdeathsig SIGKILL`, which sets
 * PR_SET_PDEATHSIG and execs the CLI (same pid): the kernel kills it when this process dies, even
 * by SIGKILL or out of memory, where no 'exit' handler runs. Without setpriv the pidfile still lets
 * the next start reap it.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => process.platform === 'linux' && existsSync(p));

/**
 * Starts `temporal server start-dev` with its SQLite file in the data folder (state survives
 * restarts), the Web UI, and our search attributes registered. The child dies with us: it is
 * stopped on stop(), killed on process exit, killed by the kernel if we crash (setpriv above), and
 * a survivor of an earlier run is found by its pidfile and stopped before we start.
 */
export interface DevServerOptions {
  cliPath: string;
  dataDir: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
  searchAttributes: Record<string, SearchAttributeType>;
  log?: (msg: string) => void;
}

export async function startTemporalDevServer(opts: DevServerOptions): Promise<DevServer> {
  // The CLI picks its HTTP API and metrics ports itself; another process may take one between its
  // pick and its bind (seen in test runs). Those ports are not ours to print, so a start that lost
  // such a race is simply tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
      opts.log?.(`temporal dev server lost a port race (${attempt}); starting it again`);
    }
  }
}

async function startOnce(opts: DevServerOptions): Promise<DevServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const dbFile = path.resolve(opts.dataDir, 'temporal.sqlite');
  const pidFile = path.resolve(opts.dataDir, 'temporal.pid');
  await reapStale(pidFile, dbFile, opts.log);
  const port = await pickPort(opts.port);
  const uiPort = await pickPort(opts.uiPort);
  const namespace = opts.namespace ?? 'default';
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--namespace',
    namespace,
    '--log-level',
    'error',
    // Task queue fairness (server 1.29): tasks are handed out round-robin between fairness keys
    // (our tenants) instead of first come, first served.
    '--dynamic-config-value',
    'matching.enableFairness=true',
    // Eager activities: a workflow task's completion hands the activity it schedules straight back
    // to the worker that asked (the SDK asks when it has a free slot), instead of a trip through the
    // history service's task queue and matching, where it waits behind every other tenant's tasks
    // (a 10-user batch's chunk waited 228 ms there at p50 during a 2,000-POST fan-out, 113 ms now).
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
    ...Object.entries(opts.searchAttributes).flatMap(([k, t]) => ['--search-attribute', `${k}=${t}`]),
  ];
  const child = SETPRIV
    ? spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', opts.cliPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(opts.cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid) writeFileSync(pidFile, String(child.pid));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      rmSync(pidFile, { force: true });
      resolve();
    }),
  );

  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`temporal dev server exited (${child.exitCode}): ${stderr}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.describeNamespace({ namespace });
      } finally {
        await connection.close();
      }
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`temporal dev server did not become ready: ${(err as Error).message} ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  opts.log?.(`Temporal dev server on ${address}, UI on http://localhost:${uiPort}`);
  return {
    address,
    pid: child.pid!,
    uiUrl: `http://localhost:${uiPort}`,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
