import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';
import { startTemporalDevServer } from '../../src/dev-hosting/dev-server.js';

/**
 * The embedded Temporal dev server must not outlive the process that started it: a crash of that
 * process (SIGKILL, out of memory) used to leave it holding port 7233, and the next `npm start`
 * failed with "port 7233 is taken".
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(path.join(os.tmpdir(), 'dev-server-orphan-'));
const started: number[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

// A parent that starts the dev server through our code and then waits to be killed.
const PARENT = `
const { startTemporalDevServer } = await import(process.env.DEV_SERVER_MODULE);
const dev = await startTemporalDevServer(JSON.parse(process.env.DEV_SERVER_OPTS));
process.stdout.write('temporal-pid ' + dev.pid + '\\n');
setInterval(() => {}, 1000);
`;

afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded Temporal dev server', () => {
  it(
    'dies with a parent killed by SIGKILL, and the next start on the same ports succeeds',
    { timeout: 120_000 },
    async () => {
      const cliPath = await resolveTemporalCli();
      const opts = {
        cliPath,
        dataDir: path.join(dir, 'crash'),
        port: await freePort(),
        uiPort: await freePort(),
        searchAttributes: {},
      };
      const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PARENT], {
        cwd: ROOT,
        env: {
          ...process.env,
          DEV_SERVER_MODULE: path.join(ROOT, 'src/dev-hosting/dev-server.ts'),
          DEV_SERVER_OPTS: JSON.stringify(opts),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const temporalPid = await new Promise<number>((resolve, reject) => {
        let out = '';
        parent.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /temporal-pid (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        parent.once('exit', (code) => reject(new Error(`parent exited (${code}) before the dev server was ready`)));
      });
      started.push(temporalPid);
      expect(alive(temporalPid)).toBe(true);
      expect(readFileSync(path.join(opts.dataDir, 'temporal.pid'), 'utf8')).toBe(String(temporalPid));

      parent.kill('SIGKILL');
      expect(await gone(temporalPid, 10_000)).toBe(true);

      const again = await startTemporalDevServer(opts);
      started.push(again.pid);
      await again.stop();
    },
  );

  it(
    'stops a dev server left running on its database file (named by the pidfile) before starting',
    { timeout: 120_000 },
    async () => {
      const cliPath = await resolveTemporalCli();
      const dataDir = path.join(dir, 'stale');
      const opts = { cliPath, dataDir, port: await freePort(), uiPort: await freePort(), searchAttributes: {} };
      // An orphan as an older version left it: started outside our code, holding our ports and file.
      const first = await startTemporalDevServer(opts);
      started.push(first.pid);
      const orphanPid = first.pid;
      // Forget it like a crashed parent would (no stop()); the pidfile stays.
      expect(readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8')).toBe(String(orphanPid));

      const second = await startTemporalDevServer(opts);
      started.push(second.pid);
      expect(await gone(orphanPid, 1_000)).toBe(true);
      expect(second.address).toBe(first.address);
      await second.stop();
    },
  );

  it(
    'leaves a live process alone when the pidfile names something that is not our dev server',
    { timeout: 60_000 },
    async () => {
      const dataDir = path.join(dir, 'recycled');
      const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
      started.push(sleeper.pid!);
      const cliPath = await resolveTemporalCli();
      const opts = { cliPath, dataDir, port: await freePort(), uiPort: await freePort(), searchAttributes: {} };
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(path.join(dataDir, 'temporal.pid'), String(sleeper.pid));
      const dev = await startTemporalDevServer(opts);
      started.push(dev.pid);
      expect(alive(sleeper.pid!)).toBe(true);
      await dev.stop();
      sleeper.kill('SIGKILL');
    },
  );
});
