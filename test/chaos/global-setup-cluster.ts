import type { TestProject } from 'vitest/node';
import { startStackLater } from '../support/stack-later.js';

/** The scaled-out topology (real Temporal server, 2 api processes, analysis and delivery workers) on our own PostgreSQL. */
export default function setup(project: TestProject) {
  return startStackLater(project, { ownInfrastructure: true, topology: 'cluster' });
}
