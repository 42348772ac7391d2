import { spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { processAlive } from '../../src/process-alive.js';
import { stack, waitFor } from '../support/api.js';
import { notJsonLines } from '../support/log-lines.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * `npm start` as a user runs it: `node --import tsx src/main.ts` (one process, tsx a loader in
 * it), every role in one process, the embedded PostgreSQL in the data folder. Temporal is the
 * stack's (the dev server's ports are fixed and may be taken on a developer's machine). A process
 * manager stops it with SIGTERM to the process it started: the graceful stop must run to its end,
 * PostgreSQL included, and everything printed must be JSON lines apart from the banner.
 */
describe('npm start (node --import tsx src/main.ts, role all, embedded PostgreSQL)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  // The embedded PostgreSQL runs as the postgres user when we are root: it must reach the folder.
  chmodSync(dir, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops everything on SIGTERM to the service process, embedded PostgreSQL included, and prints JSON lines only', async () => {
    const [port, grpcPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL') env[k] = v;
    const logFile = path.join(dir, 'out.log');
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        ...env,
        DATA_DIR: path.join(dir, 'data'),
        PORT: String(port),
        GRPC_PORT: String(grpcPort),
        HOST: '127.0.0.1',
        TEMPORAL_ADDRESS: stack().temporalAddress,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile);
    proc.stdout.pipe(log, { end: false });
    proc.stderr.pipe(log, { end: false });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    let postmaster = 0;
    try {
      await waitFor('the ready line', async () => readFileSync(logFile, 'utf8').includes('"msg":"ready"'), 120_000);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
      postmaster = Number(readFileSync(path.join(dir, 'data/postgres/postmaster.pid'), 'utf8').split('\n')[0]);
      expect(processAlive(postmaster)).toBe(true);

      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
      await waitFor('the embedded PostgreSQL to stop', async () => !processAlive(postmaster), 30_000);
      expect(notJsonLines(logFile)).toEqual([]);
      expect(readFileSync(logFile, 'utf8')).toContain('Semantic profiling service (all)');
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      // A failed stop must not leave its PostgreSQL running (SIGINT: PostgreSQL's fast shutdown).
      if (postmaster && processAlive(postmaster)) process.kill(postmaster, 'SIGINT');
    }
  });
});
