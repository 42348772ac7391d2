import os from 'node:os';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';

// A CommonJS package: its namespace object is the default export under ESM.
const { temporal } = proto;

/**
 * Whether a worker of the analysis task queue polls from this machine. Deliveries yield to
 * analysis (delivery-gate.ts) only where both share the CPU: a `worker` process always, and a
 * `delivery-worker` while an analysis worker runs on the same host. On a 2-core box with the roles
 * split, a tenant's fan-out took 1.5 cores (PostgreSQL, the Temporal server and the delivery
 * worker) and another tenant's batch waited 5x its idle p99 (docs/fairness.md); on machines of
 * their own the gate would only slow deliveries for nothing, so it stays off there.
 *
 * Temporal reports the pollers of a task queue by identity, which the SDK makes `pid@hostname`.
 * Asked at most every `everyMs` (one DescribeTaskQueue call); an error answers false (no gate).
 */
export function analysisOnThisHost(opts: {
  client: Client;
  namespace: string;
  taskQueue: string;
  everyMs?: number;
  hostname?: string;
}): () => Promise<boolean> {
  const host = opts.hostname ?? os.hostname();
  const everyMs = opts.everyMs ?? 30_000;
  let at = -Infinity;
  let answer: Promise<boolean> = Promise.resolve(false);
  const ask = async (): Promise<boolean> => {
    try {
      const res = await opts.client.workflowService.describeTaskQueue({
        namespace: opts.namespace,
        taskQueue: { name: opts.taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      });
      return (res.pollers ?? []).some((p) => (p.identity ?? '').endsWith(`@${host}`));
    } catch {
      return false;
    }
  };
  return () => {
    if (Date.now() - at >= everyMs) {
      at = Date.now();
      answer = ask();
    }
    return answer;
  };
}
