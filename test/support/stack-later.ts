import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { whenHeadsTrained } from '../global-setup-heads.js';
import { startStack, type StackOptions } from './stack.js';

/**
 * A project's stack, started in the background, its workers once the run's heads are trained
 * (they read them at start), so that vitest's global setups, which all run before the first test
 * file, do not hold the tiers that need neither. The project's files wait for it in
 * test/support/await-stack.ts (a setup file), which reads the file named by `stackFile`: the
 * stack's StackInfo, or why it did not start.
 */
export function startStackLater(project: TestProject, opts: StackOptions = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'profiling-stack-info-'));
  const file = path.join(dir, 'stack.json');
  project.provide('stackFile', file);
  const started = (async () => {
    const { info, stop } = await startStack({ ...opts, workersAfter: whenHeadsTrained() });
    writeFileSync(file, JSON.stringify({ ok: true, info }));
    return stop;
  })().catch((err: Error) => {
    writeFileSync(file, JSON.stringify({ error: err.message }));
    return undefined;
  });
  return async () => {
    const stop = await started;
    await stop?.();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    stackFile: string;
  }
}
