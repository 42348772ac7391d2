import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface ServiceProcess {
  proc: ChildProcess;
  /** Resolves when the process printed its "ready" log line. */
  ready: Promise<void>;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
}

/** Starts `tsx src/main.ts --role <role>` as a real separate process, logging to a file. */
export function spawnService(
  role: 'api' | 'worker' | 'analysis-worker' | 'delivery-worker' | 'all',
  env: Record<string, string>,
  logFile: string,
): ServiceProcess {
  // SERVICE_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles the services of a bench run.
  const nodeArgs = (process.env.SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts', '--role', role], {
    cwd: ROOT,
    // A worker's metrics on a free port unless the test chose one: workers of several stacks and
    // tests share this host, and a taken METRICS_PORT stops a worker.
    env: { ...process.env, METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  proc.stdout!.pipe(log, { end: false });
  proc.stderr!.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered = (buffered + chunk.toString()).slice(-10_000);
      if (/"msg":"ready"/.test(buffered)) {
        proc.stdout!.off('data', onData);
        resolve();
      }
    };
    proc.stdout!.on('data', onData);
    void exited.then((code) => reject(new Error(`${role} exited with ${code} before it was ready; see ${logFile}`)));
  });
  ready.catch(() => undefined);
  return { proc, ready, exited };
}

/**
 * Waits until `file` (a service's log) contains `text`: a worker is ready to analyse once its heads
 * are loaded, which on a machine without the heads cache means training them first (a minute or
 * two on 2 cores, more while another stack trains too). Tests start after that, not during it.
 */
export async function waitForLogLine(file: string, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(existsSync(file) && readFileSync(file, 'utf8').includes(text))) {
    if (Date.now() > deadline) throw new Error(`${file} did not log ${text} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
