import type { TestProject } from 'vitest/node';
import { startStackLater } from './support/stack-later.js';

/** The stack as users scale it out: the real Temporal server, 2 api processes, analysis and delivery workers. */
export default function setup(project: TestProject) {
  return startStackLater(project, { topology: 'cluster' });
}
