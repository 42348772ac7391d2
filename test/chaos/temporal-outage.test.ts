import { afterAll, describe, expect, it } from 'vitest';
import { newTenant } from '../support/api.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import {
  callBounded,
  chaos,
  expectEachEventDeliveredOnce,
  makeUsers,
  messageCount,
  restartableReceiver,
  sql,
  submit,
  undeliveredEvents,
  waitForBatches,
  wire,
} from './support.js';

const USERS = 400;
const LATE_USERS = 20;
const OUTAGE_MS = 15_000;
/** A third of the users (plan "pro") join the segment: enough deliveries, without a long tail of them. */
const PRO = { id: 'pro', rule: { field: 'attributes.plan', op: '==', value: 'pro' } };
const isPro = (u: { attributes?: Record<string, unknown> }) => u.attributes?.plan === 'pro';

describe('Temporal server stopped during a batch and pending deliveries', () => {
  afterAll(() => chaos('temporal/start'));

  it(
    'finishes the batch, delivers every event, keeps answering reads, and accepts (202) then runs a batch submitted meanwhile',
    { timeout: 600_000 },
    async () => {
      // The first attempt of each event fails, so deliveries are waiting on their retry timers.
      const rx = await restartableReceiver((r, seen) => (seen.some((s) => s.eventId === r.eventId) ? 200 : 503));
      const t = await newTenant('temporal-outage');
      const { webhookId } = await wire(t, rx.url, [PRO]);
      const users = makeUsers('tmp', USERS);
      const lateUsers = makeUsers('tmp-late', LATE_USERS);
      const res = await submit(t, users);
      expect(res.status).toBe(202);
      const first: number = res.body.source_id;

      await expect.poll(() => messageCount([first]), { timeout: 300_000, interval: 100 }).toBeGreaterThanOrEqual(60);
      await expect.poll(() => rx.received.length, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(5);
      await chaos('temporal/stop');
      const stoppedAt = Date.now();
      const atStop = { messages: await messageCount([first]), undelivered: await undeliveredEvents(t.projectId) };
      expect(atStop.messages).toBeLessThan(USERS);
      expect(atStop.undelivered).toBeGreaterThan(0);

      // Reads keep working while Temporal is away.
      const someone = (
        await sql<{ user_id: string }>(
          'SELECT user_id FROM users WHERE project_id = $1 AND aggregates IS NOT NULL LIMIT 1',
          [t.projectId],
        )
      )[0].user_id;
      const reads: number[] = [];
      for (let i = 0; i < 5; i++) {
        reads.push(
          (await callBounded('GET', `/api/v1/profiles?project_id=${t.projectId}`, { key: t.key }, 10_000)).status,
        );
        reads.push(
          (await callBounded('GET', `/api/v1/profiles/${someone}?project_id=${t.projectId}`, { key: t.key }, 10_000))
            .status,
        );
      }
      expect(
        reads.every((s) => s === 200),
        JSON.stringify(reads),
      ).toBe(true);

      // The documented choice: a submission is stored and answered 202; the relay starts it later.
      const late = await submit(t, lateUsers, 15_000);
      expect(late.status, JSON.stringify(late.body)).toBe(202);
      const lateId: number = late.body.source_id;
      const [stored] = await sql('SELECT user_count, workflow_started_at FROM sources WHERE id = $1', [lateId]);
      expect(stored).toEqual({ user_count: LATE_USERS, workflow_started_at: null });

      // A segment deployed meanwhile is deployed (200) at once; its evaluation starts once Temporal is back.
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}/segments`;
      expect(
        (
          await callBounded(
            'POST',
            base,
            { key: t.key, body: { id: 'pro-again', name: 'pro again', rule: PRO.rule } },
            10_000,
          )
        ).status,
      ).toBe(201);
      const deployed = await callBounded('POST', `${base}/pro-again/deploy`, { key: t.key }, 10_000);
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
      expect(
        await sql(`SELECT status, evaluation_pending FROM segments WHERE project_id = $1 AND slug = 'pro-again'`, [
          t.projectId,
        ]),
      ).toEqual([{ status: 'deployed', evaluation_pending: true }]);

      // A resend is accepted (202, with the workflow id it will run under) and stored for the relay,
      // like a test event: it was a 500 after 3 to 6 s before.
      const [attempt] = await sql<{ id: number; event_id: number }>(
        'SELECT id, event_id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id LIMIT 1',
        [webhookId],
      );
      const resent = await callBounded(
        'POST',
        `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks/${webhookId}/deliveries/${attempt.id}/resend`,
        { key: t.key },
        15_000,
      );
      expect(resent.status, JSON.stringify(resent.body)).toBe(202);
      const resendWorkflow: string = resent.body.workflow_id;
      expect(
        await sql(`SELECT dispatched_at, workflow_id FROM outbox WHERE kind = 'resend' AND resend_of = $1`, [
          attempt.id,
        ]),
      ).toEqual([{ dispatched_at: null, workflow_id: null }]);

      await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt))));
      await chaos('temporal/start');
      const restartedAt = Date.now();

      const done = await waitForBatches([first, lateId], 400_000);
      expect(done.get(first)).toEqual({ processed: USERS, failed: 0 });
      expect(done.get(lateId)).toEqual({ processed: LATE_USERS, failed: 0 });
      const [lateRow] = await sql('SELECT workflow_started_at IS NOT NULL AS started FROM sources WHERE id = $1', [
        lateId,
      ]);
      expect(lateRow.started).toBe(true);
      const batchesAfter = (Date.now() - restartedAt) / 1000;

      await expect.poll(() => undeliveredEvents(t.projectId), { timeout: 180_000, interval: 500 }).toBe(0);
      const deliveredAfter = (Date.now() - restartedAt) / 1000;
      // The resend ran under the id it was answered with, once, and its event arrived once more.
      await expect
        .poll(
          () =>
            sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'success' AND attempt_key LIKE $1`, [
              `${resendWorkflow}:%`,
            ]),
          { timeout: 120_000, interval: 500 },
        )
        .toEqual([{ n: 1 }]);
      await deliveriesQuiet({ webhookId }, 120_000); // no run left that could send a duplicate
      const successes = rx.successes();
      expect(successes.get(String(attempt.event_id))).toBe(2);
      successes.set(String(attempt.event_id), 1);
      const events = await expectEachEventDeliveredOnce(t.projectId, successes);
      // Every pro user entered both segments: "pro" by the folds, "pro-again" by the evaluation started after the restart or by later folds.
      expect(events).toBe(2 * [...users, ...lateUsers].filter(isPro).length);
      const [again] = await sql(
        `SELECT s.evaluation_pending, (SELECT count(*)::int FROM segment_memberships m WHERE m.segment_pk = s.pk AND m.is_member) AS members
         FROM segments s WHERE s.project_id = $1 AND s.slug = 'pro-again'`,
        [t.projectId],
      );
      expect(again).toEqual({ evaluation_pending: false, members: [...users, ...lateUsers].filter(isPro).length });
      console.log(
        `[temporal-outage] stopped ${OUTAGE_MS / 1000} s with ${atStop.messages}/${USERS} messages and ${atStop.undelivered} events undelivered; ` +
          `reads 200 x${reads.length}; late batch 202 then processed; segment deployed (200) and evaluated after the restart; ${events} events each delivered once; ` +
          `after the restart: batches done in ${batchesAfter.toFixed(0)} s, all delivered in ${deliveredAfter.toFixed(0)} s`,
      );
      await rx.stop();
    },
  );
});
