import type { TestProject } from 'vitest/node';
import { startStackLater } from './support/stack-later.js';

/**
 * The e2e stack (test/support/stack.ts): PostgreSQL, the Temporal dev server, the service as api
 * and worker processes; started once the run's heads are trained.
 */
export default function setup(project: TestProject) {
  return startStackLater(project);
}
