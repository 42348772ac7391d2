import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits in a test's fork for a file that a global setup writes when its background work ends:
 * `{ ok: true, ... }` on success, `{ error }` on failure (the heads' training, a stack's start).
 * Answers the file's JSON; throws `failed: <error>`, or on a timeout.
 */
export async function waitForReadyFile<T>(file: string, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
  const said = JSON.parse(readFileSync(file, 'utf8')) as T & { error?: string };
  if (said.error !== undefined) throw new Error(`${what}: ${said.error}`);
  return said;
}
