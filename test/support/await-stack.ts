/**
 * A setup file of the projects whose stack starts in the background (test/support/stack-later.ts):
 * before a test file runs, it waits until that stack is up and names it for `stack()`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { useStack } from './api.js';
import type { StackInfo } from './stack-info.js';

// The heads' training (about three minutes on 2 cores) and the stack's start, with room.
const WAIT_MS = 1_200_000;

const file = inject('stackFile');
const deadline = Date.now() + WAIT_MS;
while (!existsSync(file)) {
  if (Date.now() > deadline) throw new Error(`the test stack did not start within ${WAIT_MS / 1000} s`);
  await sleep(200);
}
const said = JSON.parse(readFileSync(file, 'utf8')) as { info?: StackInfo; error?: string };
if (!said.info) throw new Error(`the test stack did not start: ${said.error}`);
useStack(said.info);
