import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** `npm run eval` with these arguments, as a child process (it must end long before any training). */
const evalWith = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/bin/eval.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 50_000,
  });

describe('npm run eval -- --figures-without', () => {
  // The check runs before the cross-validation (an hour): a prefix that names no corpus line would
  // otherwise print the whole corpus' figures under another name.
  it('refuses a prefix that names no corpus line, with exit 2, before any training', { timeout: 60_000 }, () => {
    const run = evalWith('--figures-without=v8,zz9');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no corpus line has an id starting with zz9');
    // v8 names lines (data/train/v8-*.jsonl), so only zz9 is named.
    expect(run.stderr).not.toContain('v8');
    expect(run.stdout).not.toContain('cross-validation');
  });
});

describe('npm run eval -- --twins', () => {
  it('refuses a value other than together or apart, with exit 2, before any training', { timeout: 60_000 }, () => {
    const run = evalWith('--twins=mixed');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--twins must be together or apart (got mixed)');
    expect(run.stdout).not.toContain('cross-validation');
  });
});
