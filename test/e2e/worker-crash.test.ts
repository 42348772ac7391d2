import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { call, control, newTenant, stack, waitFor, waitForBatch, withDb } from '../support/api.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import { startReceiver } from '../support/receiver.js';

/** Delivery runs of the pipeline that are not asleep: a workflow task or an attempt waits to be run. */
async function dueRuns(pipelineId: number): Promise<number> {
  const ids = await withDb(async (db) =>
    (
      await db.query(
        `SELECT o.workflow_id FROM outbox o JOIN webhooks w ON w.id = o.webhook_id
            WHERE w.pipeline_id = $1 AND o.workflow_id IS NOT NULL`,
        [pipelineId],
      )
    ).rows.map((r) => r.workflow_id as string),
  );
  const connection = await Connection.connect({ address: stack().temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const runs = await Promise.all(ids.map((id) => client.workflow.getHandle(id).describe()));
    return runs.filter((d) => d.raw.pendingWorkflowTask || (d.raw.pendingActivities ?? []).length > 0).length;
  } finally {
    await connection.close();
  }
}

/*
 * The retry schedule lives in the delivery workflows' timers, not in the worker's memory: a worker
 * killed while every delivery waits for its next attempt must leave nothing behind. (A worker
 * killed mid-analysis is the chaos run's `worker-kill`, with a clean run to compare against.)
 */
describe('a worker killed while every delivery waits on a retry timer', () => {
  it(
    'delivers each event once after the restart, after the failed attempts recorded before the kill',
    { timeout: 300_000 },
    async () => {
      let answer = 503;
      const rx = await startReceiver(() => answer);
      const t = await newTenant();
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
      await call('POST', `${base}/webhooks`, { key: t.key, body: { url: rx.url, secret: 'whsec-crash-test' } });
      await call('POST', `${base}/segments`, {
        key: t.key,
        body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
      });
      await call('POST', `${base}/segments/everyone/deploy`, { key: t.key });

      const n = 40;
      const users = Array.from({ length: n }, (_, i) => ({
        user_id: `timer-${i}`,
        text: `Export to CSV please (#${i})`,
      }));
      const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
      expect(res.status).toBe(202);
      expect(await waitForBatch(res.body.source_id, 120_000)).toEqual({ processed: n, failed: 0 });

      // Every event has been tried, refused, and the refusal recorded: all n workflows are now
      // between attempts. (Waiting for the receiver alone raced the worker: a kill between the
      // 503 and its delivery row left an event with no failed attempt recorded, and its retry after
      // the restart re-sent attempt 1. That is at-least-once delivery, not what this test checks.)
      const ids = (since = 0) => new Set(rx.received.slice(since).map((r) => String(r.headers['x-event-id'])));
      const refusedAndRecorded = () =>
        withDb(async (db) => {
          const { rows } = await db.query(
            `SELECT count(DISTINCT d.event_id)::int AS n FROM webhook_deliveries d
               JOIN events e ON e.id = d.event_id
              WHERE e.project_id = $1 AND d.status = 'failed'`,
            [t.projectId],
          );
          return rows[0].n as number;
        });
      await waitFor(
        'a first, refused and recorded attempt for every event',
        async () => (await refusedAndRecorded()) === n,
        60_000,
        200,
      );
      // The window: runs asleep on their retry timers when the worker dies (a live worker runs a
      // due one at once).
      const asleepAtKill = n - (await dueRuns(t.pipelineId));
      await control('worker/kill');
      let refusedBeforeKill = 0;
      // The worker comes back whatever is asserted here: a failure must not leave the stack's
      // worker dead for the files after this one.
      try {
        expect(asleepAtKill).toBeGreaterThan(0);
        // An attempt already on the wire has landed (and was refused) once the dead worker's
        // connections are closed: its kernel sends what was written before it closes them.
        await waitFor('the dead worker disconnected', async () => (await rx.connections()) === 0, 10_000, 20);
        refusedBeforeKill = rx.received.length;
        answer = 200;
        // Every retry falls due while no worker runs: each run's timer has fired (a workflow task waits
        // for a worker) or its attempt waits for one (an activity task), none sleeps any more.
        await waitFor(
          'every retry due with no worker to run it',
          async () => (await dueRuns(t.pipelineId)) === n,
          60_000,
          250,
        );
        expect(rx.received.length).toBe(refusedBeforeKill); // nothing attempts while the worker is dead
      } finally {
        await control('worker/start');
      }

      await waitFor('every event delivered', async () => ids(refusedBeforeKill).size === n, 120_000, 200);
      await deliveriesQuiet({ pipelineId: t.pipelineId }); // no run left that could send a duplicate
      const after = rx.received.slice(refusedBeforeKill).map((r) => String(r.headers['x-event-id']));
      expect(after).toHaveLength(n); // one successful attempt each, no more
      expect(new Set(after)).toEqual(ids(0)); // the same X-Event-ID as the refused attempts

      await withDb(async (db) => {
        const { rows } = await db.query(
          `SELECT e.id, count(*) FILTER (WHERE d.status = 'failed')::int AS failed,
                  count(*) FILTER (WHERE d.status = 'success')::int AS ok,
                  bool_and(d.status = 'failed' OR d.attempt = (SELECT max(attempt) FROM webhook_deliveries x
                                                              WHERE x.event_id = e.id)) AS success_last
             FROM events e JOIN webhook_deliveries d ON d.event_id = e.id
            WHERE e.project_id = $1 GROUP BY e.id`,
          [t.projectId],
        );
        expect(rows).toHaveLength(n);
        expect(rows.filter((r) => r.failed < 1 || r.ok !== 1 || !r.success_last)).toEqual([]);
      });
      await rx.close();
    },
  );
});
