import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';

export interface LabelTrainingInput {
  labelId: number;
  version: number;
}

const { trainLabelVersion } = proxyActivities<Activities>({
  // Seconds for 10 to 200 examples; the first call on a fresh worker may wait for its model.
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Trains one version of a custom label (src/labels/train-version.ts). Started by the relay when a
 * label is created or its examples change; a newer version's training supersedes this one: its
 * result is stored only if the label is still at this version.
 */
export async function labelTrainingWorkflow(input: LabelTrainingInput): Promise<string> {
  return trainLabelVersion(input);
}
