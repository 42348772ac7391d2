import type { TestProject } from 'vitest/node';
import { startStack } from '../global-setup.js';

/** The usual stack, but PostgreSQL and Temporal are always our own so the tests can stop them. */
export default function setup(project: TestProject) {
  return startStack(project, { ownInfrastructure: true });
}
