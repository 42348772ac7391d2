import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import pg from 'pg';
import { stack } from './api.js';

/**
 * Waits until the deliveries of a webhook (or of every webhook of a pipeline) are over, so that
 * "nothing was sent twice" can be read from a receiver: a fixed sleep says nothing about a retry
 * still asleep on its timer. Over means all of:
 * - no outbox row of theirs waits to be started (`dispatched_at IS NULL`: the relay has not started
 *   its workflow yet). Every delivery run is an outbox row (migration 010), resends included;
 * - the workflow of every started row is closed, asked of each by its id: `describe` reads the
 *   workflow itself, so a run started a moment ago is never missed, as a list could miss it;
 * - on the stack's own database, no delivery workflow of theirs is open by Temporal's list either
 *   (the WebhookId and PipelineId search attributes, which only delivery workflows carry).
 *   Another installation's ids (`databaseUrl`) are not asked there: its webhook ids are the
 *   stack's too, and they share the Temporal namespace.
 * Fails the test when that does not come within `timeoutMs`, saying what was still under way.
 */
export async function deliveriesQuiet(
  scope: ({ webhookId: number } | { pipelineId: number }) & { databaseUrl?: string },
  timeoutMs = 60_000,
): Promise<void> {
  const [attribute, column, id] =
    'webhookId' in scope
      ? ['WebhookId', 'o.webhook_id', Number(scope.webhookId)]
      : ['PipelineId', 'w.pipeline_id', Number(scope.pipelineId)];
  const listed = scope.databaseUrl === undefined;
  const db = new pg.Client({ connectionString: scope.databaseUrl ?? stack().databaseUrl });
  await db.connect();
  const connection = await Connection.connect({ address: stack().temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const status = (workflowId: string) =>
      client.workflow
        .getHandle(workflowId)
        .describe()
        .then(
          (d) => d.status.name,
          // Never started (or gone): nothing of it runs.
          (err: unknown) => {
            if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
            throw err;
          },
        );
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await db.query<{ workflow_id: string | null; waiting: boolean }>(
        `SELECT o.workflow_id, o.dispatched_at IS NULL AS waiting
           FROM outbox o JOIN webhooks w ON w.id = o.webhook_id WHERE ${column} = $1`,
        [id],
      );
      const waiting = rows.filter((r) => r.waiting).length;
      const open = listed
        ? (await client.workflow.count(`${attribute} = '${id}' AND ExecutionStatus = 'Running'`)).count
        : 0;
      let running: number | undefined;
      // The list is cheap and its answer lags; the describes are exact: asked once it says 0.
      if (waiting === 0 && open === 0) {
        const started = rows.flatMap((r) => (r.workflow_id ? [r.workflow_id] : []));
        running = (await Promise.all(started.map(status))).filter((s) => s === 'RUNNING').length;
        if (running === 0) return;
      }
      if (Date.now() > deadline) {
        const still = [
          `${waiting} outbox rows waiting to be started`,
          ...(listed ? [`${open} delivery workflows listed as running`] : []),
          ...(running === undefined ? [] : [`${running} started rows' workflows running`]),
        ];
        throw new Error(`${attribute} ${id} not quiet after ${timeoutMs} ms: ${still.join(', ')}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await connection.close();
    await db.end();
  }
}
