import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';

export interface LabelBackfillInput {
  labelId: number;
  version: number;
  afterUserPk: number;
  users: number;
  changed: number;
}

const PAGE_SIZE = 100;
// Keeps the history short for projects with millions of profiles.
const PAGES_PER_RUN = 100;

const { backfillLabelPage } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Scores a project's stored messages with a label version that just became ready, page by page
 * of users (src/labels/backfill-page.ts); ends early when a newer version takes over (its own
 * backfill follows).
 */
export async function labelBackfillWorkflow(input: LabelBackfillInput): Promise<{ users: number; changed: number }> {
  let { afterUserPk, users, changed } = input;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const r = await backfillLabelPage({
      labelId: input.labelId,
      version: input.version,
      afterUserPk,
      pageSize: PAGE_SIZE,
    });
    users += r.users;
    changed += r.changed;
    if (r.nextAfterUserPk === null) return { users, changed };
    afterUserPk = r.nextAfterUserPk;
  }
  return continueAsNew<typeof labelBackfillWorkflow>({ ...input, afterUserPk, users, changed });
}
