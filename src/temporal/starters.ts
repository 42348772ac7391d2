import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config.js';
import type { BatchStarter } from '../users/identify-users.js';
import type { SegmentEvaluationStarter } from '../segments/segments.js';
import type { DeliveryStarter } from '../webhooks/webhooks.js';
import { DeliveryAttempt, EventId, PipelineId, ProjectId, SegmentId, SourceId, WebhookId } from '../../workflows/search-attributes.js';
import type { batchWorkflow, deliveryWorkflow, segmentEvaluationWorkflow } from '../../workflows/index.js';

export type Starters = BatchStarter & SegmentEvaluationStarter & DeliveryStarter;

/** An already-started workflow with the same business-key id counts as success. */
async function idempotent(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

export function createStarters(client: Client, config: Config): Starters {
  const taskQueue = config.temporal.taskQueue;
  return {
    async startBatch({ sourceId, projectId, userCount }) {
      // Bounded: while Temporal is away the API still answers 202 promptly; the relay starts it later.
      await idempotent(() => client.connection.withDeadline(Date.now() + 3_000, () =>
        client.workflow.start<typeof batchWorkflow>('batchWorkflow', {
          taskQueue,
          workflowId: `batch-${sourceId}`,
          // A finished batch must never run again under the same id.
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          args: [{ sourceId, projectId, userCount, chunkSize: config.worker.chunkSize, parallelChunks: config.worker.parallelChunks }],
          typedSearchAttributes: [
            { key: ProjectId, value: String(projectId) },
            { key: SourceId, value: String(sourceId) },
          ],
          memo: { batchSize: userCount },
          staticSummary: `Batch of ${userCount} users for project ${projectId}`,
        }),
      ));
    },
    async startSegmentEvaluation({ segmentPk, projectId, version }) {
      await idempotent(() =>
        client.workflow.start<typeof segmentEvaluationWorkflow>('segmentEvaluationWorkflow', {
          taskQueue,
          workflowId: `segment-evaluation-${segmentPk}-v${version}`,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          args: [{ segmentPk, version, afterUserPk: 0, evaluated: 0, changes: 0 }],
          typedSearchAttributes: [
            { key: ProjectId, value: String(projectId) },
            { key: SegmentId, value: String(segmentPk) },
          ],
        }),
      );
    },
    async startDelivery({ eventId, webhookId, pipelineId, resendOf }) {
      const workflowId = resendOf ? `delivery-${eventId}-${webhookId}-resend-${resendOf}-${Date.now()}` : `delivery-${eventId}-${webhookId}`;
      await idempotent(() =>
        client.workflow.start<typeof deliveryWorkflow>('deliveryWorkflow', {
          taskQueue,
          workflowId,
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          args: [{ eventId, webhookId, pipelineId, retryScheduleMs: config.webhooks.retryScheduleMs, timeoutMs: config.webhooks.timeoutMs }],
          typedSearchAttributes: [
            { key: EventId, value: String(eventId) },
            { key: WebhookId, value: String(webhookId) },
            { key: PipelineId, value: String(pipelineId) },
            { key: DeliveryAttempt, value: 0 },
          ],
        }),
      );
      return workflowId;
    },
  };
}
