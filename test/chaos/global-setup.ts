import type { TestProject } from 'vitest/node';
import { startStackLater } from '../support/stack-later.js';

/** The usual stack, but PostgreSQL and Temporal are always our own so the tests can stop them. */
export default function setup(project: TestProject) {
  return startStackLater(project, { ownInfrastructure: true });
}
