import { describe, expect, it } from 'vitest';
import { call, newTenant, waitFor } from '../support/api.js';
import { makeUsers, restartableReceiver, sql, submit, waitForBatches, wire } from './support.js';
import { deliveriesQuiet } from '../support/quiescence.js';

const USERS = 5;

describe('webhook receiver down, then failing, then back', () => {
  it(
    'delivers every event with one X-Event-ID, and the deliveries list tells the story',
    { timeout: 300_000 },
    async () => {
      // Up: the receiver answers 503 to the first attempt it sees of each event, then 200.
      const rx = await restartableReceiver((r, seen) => (seen.some((s) => s.eventId === r.eventId) ? 200 : 503));
      await rx.stop(); // down: its port refuses connections
      const t = await newTenant('receiver-outage');
      const { base, webhookId } = await wire(t, rx.url);
      const res = await submit(t, makeUsers('rx', USERS));
      expect(res.status).toBe(202);
      await waitForBatches([res.body.source_id], 120_000);

      // Every event has failed at least once with a refused connection; then the receiver comes up.
      const events = await sql<{ id: string; user_id: string }>(
        'SELECT id, user_id FROM events WHERE project_id = $1 ORDER BY id',
        [t.projectId],
      );
      expect(events).toHaveLength(USERS);
      await waitFor(
        'a refused attempt for every event',
        async () => {
          const [r] = await sql(
            `SELECT count(DISTINCT event_id)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status_code = 0`,
            [webhookId],
          );
          return r.n === USERS;
        },
        60_000,
        100,
      );
      await rx.start();
      await waitFor('every event delivered', async () => rx.successes().size === USERS, 60_000, 200);
      // Every run over before reading the story: a stray retry would show in it.
      await deliveriesQuiet({ webhookId }, 120_000);

      const list = await call('GET', `${base}/webhooks/${webhookId}/deliveries?limit=200`, { key: t.key });
      expect(list.status).toBe(200);
      const stories: string[] = [];
      for (const e of events) {
        // Newest first in the API; read it oldest first.
        const story = (list.body as any[]).filter((d) => String(d.event_id) === String(e.id)).reverse();
        const refused = story.slice(0, -2);
        expect(refused.length, JSON.stringify(story)).toBeGreaterThanOrEqual(1);
        for (const d of refused)
          expect(d).toMatchObject({ status: 'failed', status_code: 0, response_body: 'connection refused' });
        expect(story.at(-2)).toMatchObject({ status: 'failed', status_code: 503, response_body: 'unavailable (503)' });
        expect(story.at(-1)).toMatchObject({ status: 'success', status_code: 200, response_body: 'thanks' });

        // The receiver saw this event twice (503, then 200), with the same X-Event-ID and the same bytes.
        const seen = rx.received.filter((r) => JSON.parse(r.body).user.id === e.user_id);
        expect(seen.map((r) => [r.eventId, r.status])).toEqual([
          [String(e.id), 503],
          [String(e.id), 200],
        ]);
        expect(seen[0].body).toBe(seen[1].body);
        stories.push(
          `event ${e.id}: ${story.map((d) => (d.status_code === 0 ? 'refused' : d.status_code)).join(' > ')}`,
        );
      }
      console.log(
        `[receiver-outage] one X-Event-ID per event on every attempt; deliveries list:\n  ${stories.join('\n  ')}`,
      );
      await rx.stop();
    },
  );
});
