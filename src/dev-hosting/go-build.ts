import { execFile } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { machineCacheDir, toolEnvironment } from '../config.js';
import { reportProgress } from '../observability/progress.js';

const run = promisify(execFile);

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

export interface GoBuild {
  /** The cache folder, from buildCacheDir. */
  dir: string;
  /** `module/path@version` packages, all built by one `go install` (one module, one version). */
  packages: string[];
  /** The name `go install` gives each package's binary, and the name we keep it under. */
  binaries: { built: string; as: string }[];
  what: string;
  log: (msg: string) => void;
}

/**
 * Builds Go binaries once into a cache folder, with the machine's Go and the module proxy (no
 * other download). Two processes starting at once share one build: the second waits for it.
 * Answers the cached paths, in the order of `binaries`.
 */
export async function goInstallCached(b: GoBuild): Promise<string[]> {
  const paths = b.binaries.map((x) => path.join(b.dir, x.as));
  if (paths.every(executable)) return paths;
  mkdirSync(b.dir, { recursive: true });
  const lock = path.join(b.dir, '.building');
  let fd: number | undefined;
  try {
    fd = openSync(lock, 'wx');
  } catch {
    // Another process is building them (a cold build takes a few minutes).
    b.log(`another process is building ${b.what}; waiting`);
    for (let i = 0; i < 360 && !paths.every(executable); i++) await new Promise((r) => setTimeout(r, 2_500));
    if (paths.every(executable)) return paths;
    throw new Error(`the build of ${b.what} by another process did not finish; remove ${lock} and retry`);
  }
  let stopProgress = () => {};
  try {
    const started = Date.now();
    b.log(`building ${b.what} with go install (first run only, a few minutes)`);
    // Measured cold on 2 cores: 240 to 716 s (docs/performance.md#test-suite).
    stopProgress = reportProgress(b.log, `building ${b.what}`, '4 to 12 min on 2 cores, once per machine');
    const env = toolEnvironment({ GOBIN: b.dir, GOFLAGS: '-mod=mod' });
    const opts = { env, maxBuffer: 64 * 1024 * 1024 };
    try {
      await run('go', ['install', ...b.packages], opts);
    } catch (first) {
      b.log(`go install failed (${(first as Error).message.split('\n')[0]}); retrying with GOTOOLCHAIN=go1.25.4`);
      await run('go', ['install', ...b.packages], { ...opts, env: { ...env, GOTOOLCHAIN: 'go1.25.4' } });
    }
    for (const x of b.binaries) {
      const built = path.join(b.dir, x.built);
      if (x.built !== x.as && executable(built)) renameSync(built, path.join(b.dir, x.as));
    }
    if (!paths.every(executable)) throw new Error('go install finished but produced no binary');
    b.log(`${b.what} built in ${Math.round((Date.now() - started) / 1000)} s: ${b.dir}`);
    return paths;
  } finally {
    stopProgress();
    if (fd !== undefined) closeSync(fd);
    rmSync(lock, { force: true });
  }
}
