import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The analysis heads of this test run, trained once into a folder of the run's own before any test
 * starts: no tier depends on another having trained them, nor on the machine's cache (a worker
 * that found no heads would train them during a test's start-up). Every project that reads them
 * lists this setup first; the first one trains (about three minutes on 2 cores), the others find
 * HEADS_CACHE_DIR set. Forks and the service processes inherit it.
 *
 * With HEADS_CACHE_DIR set (a developer running single files again and again, or .ci/run sharing
 * one training between its three test commands), the heads are trained there only if missing,
 * and kept.
 */
let trainedFor: string | undefined;

export default async function setup(): Promise<(() => void) | undefined> {
  const given = process.env.HEADS_CACHE_DIR;
  const dir = given || mkdtempSync(path.join(os.tmpdir(), 'profiling-heads-'));
  process.env.HEADS_CACHE_DIR = dir;
  // Every project lists this setup; after the first, the run's heads are there.
  if (trainedFor === dir) return undefined;
  trainedFor = dir;
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/train-heads.ts'], {
      env: process.env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`training the heads exited with ${code}`))));
  });
  console.log(`heads ready in ${Math.round((Date.now() - started) / 1000)} s`);
  return given ? undefined : () => rmSync(dir, { recursive: true, force: true });
}
