/**
 * `npm test`: the four tiers of vitest.config.ts in two vitest processes at once.
 *
 * - unit, integration and e2e, in this process's priority: the e2e files wait on service processes,
 *   timers and retries, and leave the CPU about 40 % idle (docs/performance.md#test-suite);
 * - analysis (the files that run the local model: CPU all the way) beside them, NICE steps lower,
 *   so it takes the CPU the others leave and the stack's processes keep theirs when they need it.
 *
 * In one vitest process the analysis files could only run before or after e2e (a group shares one
 * `maxWorkers`, and e2e files must run one at a time on their shared stack), and five minutes of
 * model work stood in the line. The heads are made ready first (test/support/train-heads.ts into a
 * HEADS_CACHE_DIR both share: loaded from data/heads/ in seconds, or trained once when the corpus
 * changed), so neither process trains them.
 *
 * Options go to both (as `--name=value`); a JSON report's `--outputFile.json=<f>` becomes `<f>` for
 * the first and `<f minus .json>-analysis.json` for the analysis one. With a file filter or an
 * option of two words, it is one vitest process over the four tiers, as `vitest run` alone runs them.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BESIDE, combinedExit, planTests } from './test-plan.js';

const NICE = 10;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

const children = new Set<ChildProcess>();

function run(argv: string[], opts: SpawnOptions = {}): { child: ChildProcess; exited: Promise<number> } {
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: process.env, stdio: 'inherit', ...opts });
  children.add(child);
  const exited = new Promise<number>((resolve) => {
    child.on('error', (err) => (console.error(err), resolve(1)));
    child.on('exit', (code, signal) => (children.delete(child), resolve(code ?? (signal ? 1 : 0))));
  });
  return { child, exited };
}

// Ctrl-C reaches the children from the terminal too; a signal to this process alone is passed on.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    for (const c of children) c.kill(signal);
  });

async function main(): Promise<number> {
  const plan = planTests(process.argv.slice(2));
  if (plan.headsFirst) {
    const heads = await run(['--import', 'tsx', 'test/support/train-heads.ts']).exited;
    if (heads !== 0) {
      console.error(`npm test: the analysis heads could not be made ready (exit ${heads})`);
      return 1;
    }
  }
  const exits = plan.runs.map(({ args, beside }) => {
    if (!beside) return run([VITEST, 'run', ...args]).exited;
    // Its output is kept and printed whole when it ends, so the two reports do not interleave.
    const p = run([VITEST, 'run', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      os.setPriority(p.child.pid!, Math.min(19, os.getPriority(process.pid) + NICE));
    } catch {
      // Not permitted here: it runs at our priority, only slower for the others.
    }
    const output: Buffer[] = [];
    p.child.stdout!.on('data', (d: Buffer) => output.push(d));
    p.child.stderr!.on('data', (d: Buffer) => output.push(d));
    return p.exited.then((code) => {
      process.stdout.write(`\n=== npm test: the ${BESIDE.join(', ')} tier, run beside the others (exit ${code})\n`);
      process.stdout.write(Buffer.concat(output));
      return code;
    });
  });
  return combinedExit(await Promise.all(exits));
}

const ownHeads = !process.env.HEADS_CACHE_DIR;
if (ownHeads) process.env.HEADS_CACHE_DIR = mkdtempSync(path.join(os.tmpdir(), 'profiling-heads-'));
try {
  process.exitCode = await main();
} finally {
  if (ownHeads) rmSync(process.env.HEADS_CACHE_DIR!, { recursive: true, force: true });
}
