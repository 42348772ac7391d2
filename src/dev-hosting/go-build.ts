import { spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { machineCacheDir, toolEnvironment } from '../config.js';
import { reportProgress } from '../observability/progress.js';

/** Where binaries we build are kept between runs: `~/.cache/profiling-service/<name>`. */
export function buildCacheDir(name: string): string {
  return machineCacheDir(name);
}

export function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export interface GoToolsBuild {
  /** A Go module whose `tool` lines name the binaries (tools/temporal). */
  moduleDir: string;
  /** The cache folder, from buildCacheDir. */
  dir: string;
  /** The name `go build` gives each tool's binary, and the name we keep it under. */
  binaries: { built: string; as: string }[];
  what: string;
  log: (msg: string) => void;
  /** A shutdown: the build (go and every compiler it started) is killed at once, and the call rejects. */
  signal?: AbortSignal;
}

/**
 * Builds a module's tools once into a cache folder (`go build -o <dir>/ tool`), with the machine's
 * Go and the module proxy (no other download). Two processes starting at once share one build: the
 * second waits for it. Answers the cached paths, in the order of `binaries`.
 */
export async function goBuildToolsCached(b: GoToolsBuild): Promise<string[]> {
  const paths = b.binaries.map((x) => path.join(b.dir, x.as));
  if (paths.every(executable)) return paths;
  mkdirSync(b.dir, { recursive: true });
  const lock = path.join(b.dir, '.building');
  let fd: number | undefined;
  for (let waited = 0; fd === undefined;) {
    try {
      fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
    } catch {
      // Another process is building them (a cold build takes several minutes), or was, and died
      // (Ctrl-C, kill -9) before it removed its lock: then the lock is taken over.
      if (!builderAlive(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (waited === 0) b.log(`another process is building ${b.what}; waiting`);
      b.signal?.throwIfAborted();
      if (waited++ > 480) throw new Error(`the build of ${b.what} by another process did not finish in 20 min`);
      await new Promise((r) => setTimeout(r, 2_500));
      if (paths.every(executable)) return paths;
    }
  }
  let stopProgress = () => {};
  try {
    const started = Date.now();
    b.log(`building ${b.what} with go build (first run only, several minutes)`);
    // Measured cold on 2 cores: docs/performance.md#test-suite.
    stopProgress = reportProgress(b.log, `building ${b.what}`, '5 to 10 min on 2 cores, once per machine');
    // Built into a scratch folder and moved in binary by binary: a build killed half-way (Ctrl-C)
    // leaves no binary that looks finished.
    const scratch = path.join(b.dir, '.out');
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    const env = toolEnvironment({});
    const args = ['build', '-o', scratch + path.sep, 'tool'];
    try {
      await runGo(args, b.moduleDir, env, b.signal);
    } catch (first) {
      if (b.signal?.aborted) throw first;
      // go.mod asks for Go 1.25; an older local Go with GOTOOLCHAIN=local refuses it, and the
      // module proxy serves the toolchain.
      b.log(`go build failed (${(first as Error).message.split('\n')[0]}); retrying with GOTOOLCHAIN=go1.25.4`);
      await runGo(args, b.moduleDir, { ...env, GOTOOLCHAIN: 'go1.25.4' }, b.signal);
    }
    for (const x of b.binaries) {
      const built = path.join(scratch, x.built);
      if (executable(built)) renameSync(built, path.join(b.dir, x.as));
    }
    rmSync(scratch, { recursive: true, force: true });
    if (!paths.every(executable)) throw new Error('go build finished but produced no binary');
    b.log(`${b.what} built in ${Math.round((Date.now() - started) / 1000)} s: ${b.dir}`);
    return paths;
  } finally {
    stopProgress();
    if (fd !== undefined) closeSync(fd);
    rmSync(lock, { force: true });
  }
}

/** Whether the process whose pid a build lock holds still runs. */
function builderAlive(lock: string): boolean {
  let pid: number;
  try {
    const text = readFileSync(lock, 'utf8');
    // Empty: being written this instant, or its writer died between open and write.
    if (text === '') return Date.now() - statSync(lock).mtimeMs < 10_000;
    pid = Number(text);
  } catch {
    return false; // removed meanwhile: try to take it
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `go` in a process group of its own, so that an abort kills the whole build (go starts a
 * compiler per package; killing go alone would leave them running). A Ctrl-C on the terminal does
 * not reach that group: the abort (main.ts's shutdown) is what stops it.
 */
function runGo(args: string[], cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const child = spawn('go', args, { cwd, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8_000)));
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    signal?.addEventListener('abort', kill, { once: true });
    child.once('error', reject);
    child.once('exit', (code, sig) => {
      signal?.removeEventListener('abort', kill);
      if (signal?.aborted) reject(signal.reason);
      else if (code === 0) resolve();
      else reject(new Error(`go ${args.join(' ')} failed (${sig ?? code}): ${stderr.trim()}`));
    });
  });
}
