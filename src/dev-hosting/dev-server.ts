import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from '../temporal/search-attributes.js';
import { freePort, isPortFree } from '../free-port.js';
import { reapStale, spawnOwned } from './owned-process.js';

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
 * Starts `temporal server start-dev` with its SQLite file in the data folder (state survives
 * restarts), the Web UI, and our search attributes registered. The child dies with us: it is
 * stopped on stop(), killed on process exit, killed by the kernel if we crash (owned-process.ts), and
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
  await reapStale(pidFile, (cmdline) => cmdline.includes('start-dev') && cmdline.includes(dbFile), opts.log);
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
  const server = spawnOwned(opts.cliPath, args, pidFile);
  const { child } = server;
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`temporal dev server exited (${child.exitCode}): ${server.stderrTail()}`);
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
        throw new Error(`temporal dev server did not become ready: ${(err as Error).message} ${server.stderrTail()}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  opts.log?.(`Temporal dev server on ${address}, UI on http://localhost:${uiPort}`);
  return {
    address,
    pid: child.pid!,
    uiUrl: `http://localhost:${uiPort}`,
    stop: server.stop,
  };
}
