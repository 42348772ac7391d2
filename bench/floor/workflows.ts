import { proxyLocalActivities, proxySinks, type Sinks } from '@temporalio/workflow';

/** The bench's own workflows (bench/temporal-floor.ts): the least Temporal work a delivery can be. */
export interface FloorSinks extends Sinks {
  floor: { done(): void };
}
const { floor } = proxySinks<FloorSinks>();
const { noop } = proxyLocalActivities<{ noop(): Promise<void> }>({ startToCloseTimeout: '10s' });

/** Started and completed in one workflow task. */
export async function emptyWorkflow(): Promise<void> {
  floor.done();
}

/** One local activity, as a delivery that succeeds at once (deliveryV2Workflow's shape). */
export async function localActivityWorkflow(): Promise<void> {
  await noop();
  floor.done();
}
