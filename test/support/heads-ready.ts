import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits in a test's fork for the run's heads (test/global-setup-heads.ts trains them in the
 * background while the tiers that do not read them run). Throws what the training said when it
 * failed.
 */
export async function waitForHeads(timeoutMs = 900_000): Promise<void> {
  const file = process.env.HEADS_READY_FILE;
  if (!file) throw new Error('HEADS_READY_FILE is not set: list test/global-setup-heads.ts in this project');
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the heads were not trained within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
  const said = JSON.parse(readFileSync(file, 'utf8')) as { ok?: true; error?: string };
  if (!said.ok) throw new Error(`the run's heads could not be trained: ${said.error}`);
}
