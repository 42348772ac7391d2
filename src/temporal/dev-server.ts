import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { SearchAttributeType } from './search-attributes.js';
import { freePort, isPortFree } from '../free-port.js';

export interface DevServer {
  address: string;
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
 * stopped on stop() and killed on process exit.
 */
export async function startTemporalDevServer(opts: {
  cliPath: string;
  dataDir: string;
  port?: number;
  uiPort?: number;
  namespace?: string;
  searchAttributes: Record<string, SearchAttributeType>;
  log?: (msg: string) => void;
}): Promise<DevServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  const port = await pickPort(opts.port);
  const uiPort = await pickPort(opts.uiPort);
  const namespace = opts.namespace ?? 'default';
  const args = [
    'server', 'start-dev',
    '--db-filename', path.join(opts.dataDir, 'temporal.sqlite'),
    '--ip', '127.0.0.1',
    '--port', String(port),
    '--ui-port', String(uiPort),
    '--namespace', namespace,
    '--log-level', 'error',
    ...Object.entries(opts.searchAttributes).flatMap(([k, t]) => ['--search-attribute', `${k}=${t}`]),
  ];
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4_000);
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

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
