import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy, type SearchAttributePair } from '@temporalio/common';
import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import type { BatchStarter } from '../ingest/batch-lifecycle.js';
import type { SegmentEvaluationStarter } from '../segments/manage-segments.js';
import type { LabelTrainingStarter } from '../labels/training-start.js';
import type { DeliveryStart, DeliveryStarter } from '../webhooks/manage-webhooks.js';
import {
  DeliveryAttempt,
  EventId,
  PipelineId,
  ProjectId,
  SegmentId,
  SourceId,
  WebhookId,
} from '../../workflows/search-attributes.js';
import type {
  batchWorkflow,
  deliveryV2Workflow,
  labelBackfillWorkflow,
  labelTrainingWorkflow,
  segmentEvaluationWorkflow,
} from '../../workflows/index.js';

/**
 * Users per chunk activity, and chunks of one batch that run at once: a chunk's users are embedded
 * and folded in one activity, short enough to retry whole; four at once keep a worker's eight
 * slots busy with two batches without one batch taking them all.
 */
const BATCH_CHUNK_SIZE = 50;
const BATCH_PARALLEL_CHUNKS = 4;

export type Starters = BatchStarter & SegmentEvaluationStarter & DeliveryStarter & LabelTrainingStarter;

/** The task queue of one installation: two databases on one namespace never run each other's work. */
export function installationTaskQueue(config: Config, installationId: string): string {
  return `${config.temporal.taskQueue}-${installationId}`;
}

/** The task queue of an installation's deliveries: their own slots, so slow receivers never hold analysis ones. */
export function deliveryTaskQueue(taskQueue: string): string {
  return `${taskQueue}-deliveries`;
}

/** Memo of every workflow we start: which record it belongs to. */
export interface RecordMemo {
  record: string;
  installation: string;
}

interface OwnedStart {
  /** The readable business-key id: `<kind>-<installation>-<key>`. */
  workflowId: string;
  /** The record's own random identity (sources.uid, events.uid, segments.version_uid, resend token). */
  record: string;
  start: (workflowId: string, memo: RecordMemo) => Promise<unknown>;
  /**
   * Batches: the caller starts only what the database does not know to have run, so a closed
   * workflow of this record means the database was restored to before that run. Folding is
   * idempotent per item, so the batch simply runs again.
   */
  rerunWhenClosed?: boolean;
}

/**
 * Starts a workflow unless this record's workflow already exists, and answers its id.
 *
 * "Already started" is success only when the existing workflow is provably this record's (its
 * memo names the record). Another record's workflow under the same id (a restored or re-created
 * database on the same namespace) is logged and the record starts under an id made unique by its
 * own uid, derived, not random, so a retry or a second relay finds the same one.
 */
async function startOwned(client: Client, log: Logger, installation: string, s: OwnedStart): Promise<string> {
  let id = s.workflowId;
  for (let step = 0; step < 4; step++) {
    try {
      await s.start(id, { record: s.record, installation });
      return id;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    const existing = await client.workflow.getHandle(id).describe();
    if (existing.memo?.record !== s.record) {
      log.error(
        'workflow id already used by another record (restored or re-created database on this namespace?); starting under a record-specific id',
        {
          workflow_id: id,
          record: s.record,
          existing_record: existing.memo?.record ?? null,
        },
      );
      id = `${s.workflowId}-${s.record.replace(/-/g, '').slice(0, 12)}`;
      continue;
    }
    if (s.rerunWhenClosed && existing.status.name !== 'RUNNING') {
      log.warn('this batch ran before but the database does not know it (restored database?); running it again', {
        workflow_id: id,
        status: existing.status.name,
      });
      id = `${id}-rerun-${existing.runId.slice(0, 8)}`;
      continue;
    }
    return id;
  }
  throw new Error(`no free workflow id for record ${s.record} (last tried ${id})`);
}

export function createStarters(client: Client, config: Config, installation: string, log: Logger): Starters {
  const taskQueue = installationTaskQueue(config, installation);
  const owned = (s: OwnedStart) => startOwned(client, log, installation, s);
  // What every start shares. REJECT_DUPLICATE: a finished workflow never runs again under its id.
  // The tenant is the fairness key: with fairness on (the dev server turns it on; docs/fairness.md), the
  // task queue hands out tasks round-robin between tenants instead of first come, first served,
  // and the workflow's activities inherit the key. A server without fairness ignores it.
  const common = (
    workflowId: string,
    memo: RecordMemo,
    typedSearchAttributes: SearchAttributePair[],
    tenantId: number,
  ) => ({
    taskQueue,
    workflowId,
    ...(config.fairnessOff.has('fairness-keys') ? {} : { priority: { fairnessKey: `tenant-${tenantId}` } }),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes,
    memo: { ...memo },
  });
  // Bounded: while Temporal is away the API still answers (202, 200) promptly; the relay starts it later.
  const bounded = <T>(fn: () => Promise<T>) => client.connection.withDeadline(Date.now() + 3_000, fn);
  // A resend is its own record: one per request, or one per Idempotency-Key; a recovery one per
  // outbox row. Both are named by the row's token (a uuid), so the api and the relay derive one id.
  const deliveryWorkflowId = ({ eventId, webhookId, resend }: DeliveryStart) => {
    const base = `delivery-${installation}-${eventId}-${webhookId}`;
    if (!resend) return base;
    const token = resend.token.replace(/-/g, '').slice(0, 16);
    return resend.recovery ? `${base}-recovery-${token}` : `${base}-resend-${resend.deliveryId}-${token}`;
  };
  return {
    startBatch({ sourceId, sourceUid, projectId, tenantId, userCount }) {
      return bounded(() =>
        owned({
          workflowId: `batch-${installation}-${sourceId}`,
          record: sourceUid,
          rerunWhenClosed: true,
          start: (workflowId, memo) =>
            client.workflow.start<typeof batchWorkflow>('batchWorkflow', {
              ...common(
                workflowId,
                memo,
                [
                  { key: ProjectId, value: String(projectId) },
                  { key: SourceId, value: String(sourceId) },
                ],
                tenantId,
              ),
              args: [
                {
                  sourceId,
                  projectId,
                  userCount,
                  chunkSize: BATCH_CHUNK_SIZE,
                  parallelChunks: BATCH_PARALLEL_CHUNKS,
                },
              ],
              staticSummary: `Batch of ${userCount} users for project ${projectId}`,
            }),
        }),
      );
    },
    async startSegmentEvaluation({ segmentPk, projectId, tenantId, version, versionUid }) {
      await bounded(() =>
        owned({
          workflowId: `segment-evaluation-${installation}-${segmentPk}-v${version}`,
          record: versionUid,
          start: (workflowId, memo) =>
            client.workflow.start<typeof segmentEvaluationWorkflow>('segmentEvaluationWorkflow', {
              ...common(
                workflowId,
                memo,
                [
                  { key: ProjectId, value: String(projectId) },
                  { key: SegmentId, value: String(segmentPk) },
                ],
                tenantId,
              ),
              args: [{ segmentPk, version, afterUserPk: 0, evaluated: 0, changes: 0 }],
            }),
        }),
      );
    },
    async startLabelTraining({ labelId, projectId, tenantId, version, versionUid }) {
      await bounded(() =>
        owned({
          workflowId: `label-training-${installation}-${labelId}-v${version}`,
          record: versionUid,
          start: (workflowId, memo) =>
            client.workflow.start<typeof labelTrainingWorkflow>('labelTrainingWorkflow', {
              ...common(workflowId, memo, [{ key: ProjectId, value: String(projectId) }], tenantId),
              args: [{ labelId, version }],
              staticSummary: `Label ${labelId} version ${version} of project ${projectId}`,
            }),
        }),
      );
    },
    async startLabelBackfill({ labelId, projectId, tenantId, version, versionUid }) {
      await bounded(() =>
        owned({
          workflowId: `label-backfill-${installation}-${labelId}-v${version}`,
          record: versionUid,
          start: (workflowId, memo) =>
            client.workflow.start<typeof labelBackfillWorkflow>('labelBackfillWorkflow', {
              ...common(workflowId, memo, [{ key: ProjectId, value: String(projectId) }], tenantId),
              args: [{ labelId, version, afterUserPk: 0, users: 0, changed: 0 }],
              staticSummary: `Backfill of label ${labelId} version ${version} in project ${projectId}`,
            }),
        }),
      );
    },
    deliveryWorkflowId,
    startDelivery(start) {
      const { eventId, eventUid, webhookId, pipelineId, tenantId, resend } = start;
      // Bounded too: a resend holds its webhook's row while it starts (webhooks/redeliver.ts).
      return bounded(() =>
        owned({
          workflowId: deliveryWorkflowId(start),
          record: resend ? resend.token : `${eventUid}/${webhookId}`,
          start: (workflowId, memo) =>
            client.workflow.start<typeof deliveryV2Workflow>('deliveryV2Workflow', {
              ...common(
                workflowId,
                memo,
                [
                  { key: EventId, value: String(eventId) },
                  { key: WebhookId, value: String(webhookId) },
                  { key: PipelineId, value: String(pipelineId) },
                  // The first attempt starts at once; the workflow updates it from the second.
                  { key: DeliveryAttempt, value: 1 },
                ],
                tenantId,
              ),
              taskQueue: deliveryTaskQueue(taskQueue),
              args: [
                {
                  eventId,
                  webhookId,
                  pipelineId,
                  retryScheduleMs: config.webhooks.retryScheduleMs,
                  timeoutMs: config.webhooks.timeoutMs,
                },
              ],
            }),
        }),
      );
    },
  };
}
