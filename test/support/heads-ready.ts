import { waitForReadyFile } from './ready-file.js';

/**
 * Waits in a test's fork for the run's heads (test/global-setup-heads.ts trains them in the
 * background while the tiers that do not read them run). Throws what the training said when it
 * failed.
 */
export async function waitForHeads(timeoutMs = 900_000): Promise<void> {
  const file = process.env.HEADS_READY_FILE;
  if (!file) throw new Error('HEADS_READY_FILE is not set: list test/global-setup-heads.ts in this project');
  await waitForReadyFile(file, "the run's heads could not be trained", timeoutMs);
}
