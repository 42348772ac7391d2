import { proxyActivities, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';
import { nextRetryDelayMs } from './retry-delay.js';
import { DeliveryAttempt } from './search-attributes.js';

export interface DeliveryInput {
  eventId: number;
  webhookId: number;
  pipelineId: number;
  /** Delays between attempts, from WEBHOOK_RETRY_SCHEDULE when the workflow was started. */
  retryScheduleMs: number[];
  /** Attempt timeout; the activity's own timeout leaves room for it. */
  timeoutMs: number;
}

export interface DeliveryOutput {
  outcome: 'delivered' | 'exhausted' | 'stopped';
  attempts: number;
  lastStatusCode: number;
}

/**
 * Delivers one event to one webhook. Each HTTP attempt is one activity that records its own
 * delivery row; between failed attempts the workflow sleeps on a durable timer for the delay the
 * schedule gives, or longer when the receiver's Retry-After asks for it. The activity re-reads the webhook every time, so a deleted or deactivated
 * webhook stops the retries and a changed URL or secret is used from the next attempt.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryOutput> {
  const { deliverAttempt } = proxyActivities<Activities>({
    startToCloseTimeout: input.timeoutMs + 30_000,
    // Only infrastructure errors (database down) throw; HTTP failures are outcomes, not exceptions.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const { workflowId } = workflowInfo();
  for (let attempt = 1; ; attempt++) {
    upsertSearchAttributes([{ key: DeliveryAttempt, value: attempt }]);
    const r = await deliverAttempt({
      workflowId,
      eventId: input.eventId,
      webhookId: input.webhookId,
      attempt,
      last: attempt > input.retryScheduleMs.length,
    });
    if (r.outcome === 'success') return { outcome: 'delivered', attempts: attempt, lastStatusCode: r.statusCode };
    if (r.outcome === 'stopped') return { outcome: 'stopped', attempts: attempt, lastStatusCode: r.statusCode };
    const delay = nextRetryDelayMs(attempt, input.retryScheduleMs);
    if (delay === null) return { outcome: 'exhausted', attempts: attempt, lastStatusCode: r.statusCode };
    // A 429 or 503 with Retry-After (capped at 24 h by the activity) waits at least that long;
    // it never adds an attempt. Histories from before this field have none: the same timers replay.
    await sleep(Math.max(delay, r.retryAfterMs ?? 0));
  }
}
