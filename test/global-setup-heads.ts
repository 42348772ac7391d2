import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The analysis heads of this test run: the shipped ones (data/heads/, seconds) when they fit the
 * corpus, else trained once into a folder of the run's own: no tier
 * depends on another having trained them, nor on the machine's cache (a worker that found no heads
 * would train them during a test's start-up). Every project that reads them lists this setup
 * first; the first one starts the training, the others find HEADS_CACHE_DIR set. Forks and the
 * service processes inherit it.
 *
 * The training (two to three minutes on 2 cores) runs in the background: the tiers that do not
 * read the heads (unit, integration) run meanwhile. What reads them waits for it: the stacks start
 * their processes after it (`whenHeadsTrained`, test/support/stack-later.ts), and a test file in a
 * fork waits for the file named by HEADS_READY_FILE (test/support/heads-ready.ts), which says
 * `{"ok":true}` or why the training failed.
 *
 * With HEADS_CACHE_DIR set (a developer running single files again and again, or .ci/run sharing
 * one training between its three test commands), the heads are trained there only if missing,
 * and kept.
 */

// Per vitest process, not per module instance: each project imports its global setups anew.
const registry = globalThis as typeof globalThis & { profilingHeadsTraining?: Map<string, Promise<void>> };
const trainings = (registry.profilingHeadsTraining ??= new Map());

function train(dir: string, readyFile: string): { training: Promise<void>; child: ChildProcess } {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/train-heads.ts'], {
    env: process.env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`training the heads exited with ${code ?? signal}`)),
    );
  });
  const training = done.then(
    () => {
      console.log(`heads ready in ${Math.round((Date.now() - started) / 1000)} s (${dir})`);
      writeFileSync(readyFile, JSON.stringify({ ok: true }));
    },
    (err: Error) => {
      writeFileSync(readyFile, JSON.stringify({ error: err.message }));
      throw err;
    },
  );
  return { training, child };
}

/** Resolves when this run's heads are trained (rejects when the training failed). */
export function whenHeadsTrained(): Promise<void> {
  const training = trainings.get(process.env.HEADS_CACHE_DIR ?? '');
  if (!training) throw new Error('test/global-setup-heads.ts must be listed before the setups that read the heads');
  return training;
}

export default function setup(): (() => Promise<void>) | undefined {
  const given = process.env.HEADS_CACHE_DIR;
  const dir = given || mkdtempSync(path.join(os.tmpdir(), 'profiling-heads-'));
  process.env.HEADS_CACHE_DIR = dir;
  // Every project lists this setup; after the first, the run's training is under way.
  if (trainings.has(dir)) return undefined;
  // The marker lives beside nothing of a later run: a lasting HEADS_CACHE_DIR keeps no stale one.
  const markerDir = mkdtempSync(path.join(os.tmpdir(), 'profiling-heads-ready-'));
  const readyFile = path.join(markerDir, 'ready.json');
  process.env.HEADS_READY_FILE = readyFile;
  const { training, child } = train(dir, readyFile);
  // Whoever waits sees the failure; the run itself must not die of an unhandled rejection.
  training.catch((err: Error) => console.error(`training the heads failed: ${err.message}`));
  trainings.set(dir, training);
  return async () => {
    // A run stopped early (a failed setup, ^C) does not wait for the training to finish.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await training.catch(() => undefined);
    rmSync(markerDir, { recursive: true, force: true });
    if (!given) rmSync(dir, { recursive: true, force: true });
  };
}
