import {
  proxyActivities,
  proxyLocalActivities,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';
import { nextRetryDelayMs, retryWaitMs } from './retry-delay.js';
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
 * delivery row. It runs as a local activity, in the worker that runs the workflow task: a delivery
 * that succeeds at once is then one workflow task (start, attempt, done), where a regular
 * activity took two workflow tasks and an activity task through the server, about half the
 * Temporal work per delivery (docs/performance.md). The attempt is still recorded once, by its
 * row's key, and a worker that dies mid-attempt has it run again elsewhere. The start says
 * attempt 1 (starters.ts), so the first attempt writes no search attribute. Between failed attempts the workflow sleeps on a durable timer for the delay the
 * schedule gives, or longer when the receiver's Retry-After asks for it, or until the turn an
 * attempt to a failing webhook was given while other tenants deliver. The activity re-reads the webhook every time, so a deleted or deactivated
 * webhook stops the retries and a changed URL or secret is used from the next attempt.
 */
export async function deliveryV2Workflow(input: DeliveryInput): Promise<DeliveryOutput> {
  return deliver(input, true);
}

/**
 * The first version: each attempt a regular activity, the attempt number upserted every time. It
 * stays registered until the deliveries started as it have ended (the retry schedule, 1 day and
 * 38 minutes by default), so a rolling deploy replays their histories as they were written.
 * A separate workflow type and not `patched()`: a patch upserts the TemporalChangeVersion search
 * attribute in every new workflow, the visibility write the new version drops.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryOutput> {
  return deliver(input, false);
}

async function deliver(input: DeliveryInput, local: boolean): Promise<DeliveryOutput> {
  const options = {
    startToCloseTimeout: input.timeoutMs + 30_000,
    // Only infrastructure errors (database down) throw; HTTP failures are outcomes, not exceptions.
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
  };
  const { deliverAttempt } = local
    ? // A retry that waits longer than a second (an attempt sent back to wait its turn) waits on a
      // durable timer, not in the worker with the workflow task held open.
      proxyLocalActivities<Activities>({ ...options, localRetryThreshold: '1 second' })
    : proxyActivities<Activities>(options);
  const { workflowId } = workflowInfo();
  // The turn the previous failure booked for this attempt (src/fairness/failing-turns.ts).
  let turnAt: number | undefined;
  for (let attempt = 1; ; attempt++) {
    // The start already says attempt 1 (starters.ts): one visibility write less per delivery.
    if (!local || attempt > 1) upsertSearchAttributes([{ key: DeliveryAttempt, value: attempt }]);
    const delay = nextRetryDelayMs(attempt, input.retryScheduleMs);
    const args = {
      workflowId,
      eventId: input.eventId,
      webhookId: input.webhookId,
      attempt,
      last: delay === null,
      ...(delay !== null && { nextDelayMs: delay }),
      canDefer: true,
    };
    let r = await deliverAttempt(turnAt === undefined ? args : { ...args, turnAt });
    // A failing webhook's attempt put off to its turn (src/fairness/failing-turns.ts): the same
    // attempt, later, with the turn it was given. Histories from before this outcome never take it.
    while (r.outcome === 'deferred') {
      await sleep(r.deferMs ?? 1_000);
      r = await deliverAttempt({ ...args, turnAt: r.turnAt });
    }
    if (r.outcome === 'success') return { outcome: 'delivered', attempts: attempt, lastStatusCode: r.statusCode };
    if (r.outcome === 'stopped') return { outcome: 'stopped', attempts: attempt, lastStatusCode: r.statusCode };
    if (delay === null) return { outcome: 'exhausted', attempts: attempt, lastStatusCode: r.statusCode };
    // A 429 or 503 with Retry-After (capped at 24 h by the activity) waits at least that long, and
    // so does the next attempt's turn while other tenants deliver; neither adds an attempt.
    // Histories from before these fields have none: the same timers replay. The attempt's row
    // records this wait as its next_attempt_at.
    await sleep(retryWaitMs(delay, r.retryAfterMs, r.nextTurnInMs));
    turnAt = r.nextTurnAt;
  }
}
