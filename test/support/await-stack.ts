/**
 * A setup file of the projects whose stack starts in the background (test/support/stack-later.ts):
 * before a test file runs, it waits until that stack is up and names it for `stack()`.
 */
import { inject } from 'vitest';
import { useStack } from './api.js';
import { waitForReadyFile } from './ready-file.js';
import type { StackInfo } from './stack-info.js';

// The heads' training (about three minutes on 2 cores) and the stack's start, with room.
const WAIT_MS = 1_200_000;

const { info } = await waitForReadyFile<{ info: StackInfo }>(
  inject('stackFile'),
  'the test stack did not start',
  WAIT_MS,
);
useStack(info);
