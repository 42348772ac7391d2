import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';

export interface SegmentEvaluationInput {
  segmentPk: number;
  version: number;
  afterUserPk: number;
  evaluated: number;
  changes: number;
}

export interface SegmentEvaluationOutput {
  evaluated: number;
  changes: number;
}

const PAGE_SIZE = 200;
// Keeps the history short for projects with millions of profiles.
const PAGES_PER_RUN = 100;

const { evaluateSegmentPage } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // A killed worker is noticed after this long, and the chunk is retried elsewhere.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Evaluates a newly deployed or changed segment against every existing profile of its project. */
export async function segmentEvaluationWorkflow(input: SegmentEvaluationInput): Promise<SegmentEvaluationOutput> {
  let { afterUserPk, evaluated, changes } = input;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const r = await evaluateSegmentPage({
      segmentPk: input.segmentPk,
      version: input.version,
      afterUserPk,
      pageSize: PAGE_SIZE,
    });
    evaluated += r.evaluated;
    changes += r.changes;
    if (r.nextAfterUserPk === null) return { evaluated, changes };
    afterUserPk = r.nextAfterUserPk;
  }
  return continueAsNew<typeof segmentEvaluationWorkflow>({ ...input, afterUserPk, evaluated, changes });
}
