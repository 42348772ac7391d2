import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync, closeSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const TEMPORAL_CLI_VERSION = '1.5.1';

export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'profiling-service', `temporal-${TEMPORAL_CLI_VERSION}`);
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/**
 * Finds the `temporal` CLI without the internet: TEMPORAL_CLI_PATH, then PATH, then our cache,
 * then a build with `go install` (v1.5.1 is the newest tag without a replace directive) into the
 * cache. The SDK's own download needs the internet, so it is the user's last resort, not ours.
 */
export async function resolveTemporalCli(
  opts: { cliPath?: string; log?: (msg: string) => void } = {},
): Promise<string> {
  const log = opts.log ?? (() => undefined);
  if (opts.cliPath) {
    if (!executable(opts.cliPath)) throw new Error(`TEMPORAL_CLI_PATH=${opts.cliPath} is not an executable file`);
    return opts.cliPath;
  }
  const found = onPath('temporal');
  if (found) return found;
  const dir = cacheDir();
  const cached = path.join(dir, 'temporal');
  if (executable(cached)) return cached;

  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, '.building');
  let fd: number | undefined;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    // Another process is building it: wait for the binary (a cold build takes a few minutes).
    log('another process is building the Temporal CLI; waiting');
    for (let i = 0; i < 240 && !executable(cached); i++) await new Promise((r) => setTimeout(r, 2_500));
    if (executable(cached)) return cached;
    throw new Error(`Temporal CLI build by another process did not finish; remove ${lock} and retry`);
  }
  try {
    const started = Date.now();
    log(`building the Temporal CLI v${TEMPORAL_CLI_VERSION} with go install (first run only, a few minutes)`);
    const pkg = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;
    const env = { ...process.env, GOBIN: dir, GOFLAGS: '-mod=mod' };
    try {
      await run('go', ['install', pkg], { env, maxBuffer: 64 * 1024 * 1024 });
    } catch (first) {
      log(
        `go install failed with the installed Go (${(first as Error).message.split('\n')[0]}); retrying with GOTOOLCHAIN=go1.25.4`,
      );
      await run('go', ['install', pkg], { env: { ...env, GOTOOLCHAIN: 'go1.25.4' }, maxBuffer: 64 * 1024 * 1024 });
    }
    if (!executable(cached)) throw new Error('go install finished but produced no binary');
    log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s: ${cached}`);
    return cached;
  } catch (err) {
    throw new Error(
      `No Temporal CLI found. Set TEMPORAL_CLI_PATH, put \`temporal\` on PATH, install Go to let us build it, ` +
        `or set TEMPORAL_ADDRESS to an existing server. Cause: ${(err as Error).message}`,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
    rmSync(lock, { force: true });
  }
}
