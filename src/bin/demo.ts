import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, toolEnvironment } from '../config.js';
import type { Demo } from '../demo.js';
import { startDemoReceiver } from '../demo/receiver.js';
import { demoUsers, sendRounds, setUpPipeline } from '../demo/sample.js';

/**
 * `npm run demo`: `npm start` with something to look at. It starts the service (every role, the
 * embedded PostgreSQL and the Temporal dev server, as `npm start`) trusting a webhook receiver of
 * its own on 127.0.0.1, deploys four segments and a webhook to that receiver in the demo project,
 * and sends 36 users' messages in rounds. The console, the Temporal UI and the receiver's lines
 * below show the whole path. Ctrl-C stops everything. Decisions: docs/operations.md#the-demo.
 */
// `npm run demo -- --receiver-port 9443`: where the demo's webhook receiver listens (0: any free port).
const { values } = parseArgs({ options: { 'receiver-port': { type: 'string', default: '9443' } } });
const config = (() => {
  try {
    return loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(err instanceof ConfigError ? 2 : 1);
  }
})();
if (config.databaseUrl) {
  console.error(
    'npm run demo runs on the embedded PostgreSQL of the data folder: unset DATABASE_URL (npm start uses it)',
  );
  process.exit(2);
}
const print = (line: string) => console.log(`\x1b[1m${line}\x1b[0m`);
const demoDir = path.join(config.dataDir, 'demo-receiver');
mkdirSync(demoDir, { recursive: true });
const secretFile = path.join(demoDir, 'secret');
if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(24).toString('hex'), { mode: 0o600 });
const secret = readFileSync(secretFile, 'utf8').trim();

const receiver = await startDemoReceiver({
  certDir: demoDir,
  port: Number(values['receiver-port']),
  secret: () => secret,
  print,
});

// The service as `npm start` runs it, trusting the receiver's CA and allowed to call 127.0.0.1
// (the SSRF guard refuses private addresses by default).
const main = fileURLToPath(new URL(`../main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
// In a process group of its own: a terminal's Ctrl-C reaches the demo only, which passes each
// signal on once. Were the service in the terminal's group too, it would get every Ctrl-C twice,
// and a second signal means "stop now" to it (main.ts): its graceful stop would be cut short.
const service = spawn(process.execPath, [...process.execArgv, main], {
  stdio: 'inherit',
  detached: true,
  env: toolEnvironment({
    NODE_EXTRA_CA_CERTS: path.join(demoDir, 'ca.pem'),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  }),
});
let stopping = false;
const stop = (code: number, signal: NodeJS.Signals = 'SIGINT') => {
  if (service.exitCode === null && service.signalCode === null) service.kill(signal);
  if (stopping) return;
  stopping = true;
  void receiver.close();
  if (service.exitCode !== null || service.signalCode !== null) process.exit(code);
  service.once('exit', () => process.exit(code));
};
service.once('exit', (code) => {
  if (!stopping) {
    console.error(`the service exited (${code}); the demo stops`);
    void receiver.close().then(() => process.exit(code ?? 1));
  }
});
process.on('SIGINT', () => stop(0, 'SIGINT'));
process.on('SIGTERM', () => stop(0, 'SIGTERM'));

try {
  const baseUrl = `http://127.0.0.1:${config.http.port}`;
  const demoFile = path.join(config.dataDir, 'demo.json');
  // The service writes demo.json before it says ready; /healthz answers once it serves.
  for (;;) {
    if (stopping) await new Promise(() => undefined);
    const up = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up && existsSync(demoFile)) break;
    await sleep(500);
  }
  const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as Demo;
  const target = { baseUrl, apiKey: demo.api_key, projectId: demo.project_id, pipelineId: demo.pipeline_id };
  await setUpPipeline(target, receiver.url, secret);
  const users = demoUsers();
  print(
    `demo: ${users.length} users into the demo project (${demo.project_id}); segments deployed, webhook -> ${receiver.url}`,
  );
  print(`demo: console  http://localhost:${config.http.port}/console  (API key ${demo.api_key})`);
  // One run id per data folder: running the demo again replays the same batches (no duplicates).
  const sent = await sendRounds(target, users, { runId: demo.api_key.slice(-8), print });
  print(
    `demo: ${sent} messages analysed; ${receiver.received()} webhook events so far. ` +
      'Open the console to read the profiles; Ctrl-C stops everything.',
  );
} catch (err) {
  if (!stopping) {
    console.error(`demo: ${(err as Error).message}`);
    stop(1);
  }
}
