import { spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { demoUsers, DEMO_SEGMENTS } from '../../src/demo/sample.js';
import { stack } from '../support/api.js';
import { processes } from '../support/processes.js';
import { waitForLogLine } from '../support/service-process.js';

const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * `npm run demo` as a user runs it (node --import tsx src/bin/demo.ts; the embedded PostgreSQL of its data
 * folder; Temporal is the stack's, as the dev server's ports are fixed): the service starts, the
 * sample's rounds are sent and analysed, and the demo's own HTTPS receiver prints signed
 * `user_added` events for the deployed segments. Then Ctrl-C stops all of it.
 */
describe('npm run demo', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'demo-'));
  chmodSync(dir, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the sample, the receiver prints verified user_added events, and Ctrl-C stops it all', async () => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL') env[k] = v;
    const logFile = path.join(dir, 'demo.log');
    const proc = spawn('npm', ['run', '--silent', 'demo', '--', '--receiver-port', '0'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...env,
        DATA_DIR: path.join(dir, 'data'),
        PORT: String(await freePort()),
        GRPC_PORT: String(await freePort()),
        HOST: '127.0.0.1',
        TEMPORAL_ADDRESS: stack().temporalAddress,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile);
    proc.stdout.pipe(log, { end: false });
    proc.stderr.pipe(log, { end: false });
    // Closed when every process holding its pipes is gone; then the file has all they printed.
    const exited = new Promise<void>((resolve) => proc.once('close', () => log.end(() => resolve())));
    try {
      await waitForLogLine(logFile, 'messages analysed;', 300_000);
      // Deliveries follow the analysis by moments.
      await waitForLogLine(logFile, 'user_added', 60_000);
      const text = readFileSync(logFile, 'utf8');
      const sent = demoUsers().reduce((n, u) => n + u.messages.length, 0);
      expect(text).toContain(`demo: ${sent} messages analysed`);
      expect(text).not.toContain('signature did not verify');
      // Every event line names one of the demo's segments.
      const events = text.split('\n').filter((l) => l.includes('webhook + user_added'));
      expect(events.length).toBeGreaterThan(0);
      const names = new Set(DEMO_SEGMENTS.map((s) => s.name));
      for (const line of events)
        expect(
          [...names].some((n) => line.includes(n)),
          line,
        ).toBe(true);
      // Ctrl-C: npm, the demo and the service it started are gone, the service having stopped itself.
      process.kill(-proc.pid!, 'SIGINT');
      await exited;
      for (let i = 0; i < 100 && processes({ pgid: proc.pid! }).length > 0; i++) await sleep(100);
      expect(processes({ pgid: proc.pid! })).toEqual([]);
      expect(readFileSync(logFile, 'utf8')).toContain('"state":"STOPPED"');
    } finally {
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
  });
});
