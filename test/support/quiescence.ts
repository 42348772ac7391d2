import { Client, Connection } from '@temporalio/client';
import { stack, withDb } from './api.js';

/**
 * Waits until the deliveries of a webhook (or of every webhook of a pipeline) are over: no outbox
 * row of theirs waits to be started, and no delivery workflow of theirs is open in Temporal (the
 * WebhookId and PipelineId search attributes). Only then can
 * "nothing was sent twice" be read from a receiver: a fixed sleep says nothing about a retry
 * still asleep on its timer. Fails the test when it does not come within `timeoutMs`.
 */
export async function deliveriesQuiet(
  scope: { webhookId: number } | { pipelineId: number },
  timeoutMs = 60_000,
): Promise<void> {
  const [attribute, column, id] =
    'webhookId' in scope
      ? ['WebhookId', 'o.webhook_id', Number(scope.webhookId)]
      : ['PipelineId', 'w.pipeline_id', Number(scope.pipelineId)];
  const connection = await Connection.connect({ address: stack().temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      const waiting = await withDb(
        async (db) =>
          (
            await db.query(
              `SELECT count(*)::int AS n FROM outbox o JOIN webhooks w ON w.id = o.webhook_id
                WHERE ${column} = $1 AND o.dispatched_at IS NULL`,
              [id],
            )
          ).rows[0].n as number,
      );
      // Visibility follows the history by a moment: the count is asked again until both are 0.
      const open = (await client.workflow.count(`${attribute} = '${id}' AND ExecutionStatus = 'Running'`)).count;
      if (waiting === 0 && open === 0) return;
      last = `${waiting} outbox rows waiting, ${open} delivery workflows open`;
      if (Date.now() > deadline) throw new Error(`${attribute} ${id} not quiet after ${timeoutMs} ms: ${last}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await connection.close();
  }
}
