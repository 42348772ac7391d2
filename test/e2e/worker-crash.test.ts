import { describe, expect, it } from 'vitest';
import { call, control, newTenant, waitFor, waitForBatch, withDb } from '../support/api.js';
import { startReceiver } from '../support/receiver.js';

const TEXTS = [
  'I am unhappy, the app is slow and keeps crashing.',
  'Great support team, thanks for the quick answer!',
  'Too expensive for what it does, I will cancel.',
  'Please add an export to Excel.',
];

describe('a worker killed mid-batch', () => {
  it(
    'is restarted and every user is processed exactly once, with no duplicate events',
    { timeout: 420_000 },
    async () => {
      const rx = await startReceiver();
      const t = await newTenant();
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
      await call('POST', `${base}/webhooks`, { key: t.key, body: { url: rx.url } });
      await call('POST', `${base}/segments`, {
        key: t.key,
        body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
      });
      await call('POST', `${base}/segments/everyone/deploy`, { key: t.key });

      const n = 600;
      const users = Array.from({ length: n }, (_, i) => ({
        user_id: `crash-${i}`,
        text: `${TEXTS[i % TEXTS.length]} (#${i})`,
      }));
      const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
      expect(res.status).toBe(202);
      const sourceId = res.body.source_id;

      const count = () =>
        withDb(
          async (db) =>
            (await db.query('SELECT count(*)::int AS n FROM messages WHERE source_id = $1', [sourceId])).rows[0]
              .n as number,
        );
      await waitFor('some progress', async () => (await count()) >= 50, 120_000, 50);
      await control('worker/kill');
      const atKill = await count();
      expect(atKill).toBeLessThan(n); // killed in the middle, not after
      await control('worker/start');

      expect(await waitForBatch(sourceId, 300_000)).toEqual({ processed: n, failed: 0 });
      await withDb(async (db) => {
        const perUser = await db.query(
          `SELECT u.user_id, u.message_count, count(m.id)::int AS messages FROM users u
         LEFT JOIN messages m ON m.user_pk = u.id WHERE u.project_id = $1 GROUP BY u.id`,
          [t.projectId],
        );
        expect(perUser.rows).toHaveLength(n);
        expect(perUser.rows.every((r) => r.message_count === 1 && r.messages === 1)).toBe(true);
        const events = await db.query(
          `SELECT user_id, count(*)::int AS n FROM events WHERE project_id = $1 GROUP BY user_id`,
          [t.projectId],
        );
        expect(events.rows).toHaveLength(n);
        expect(events.rows.every((r) => r.n === 1)).toBe(true);
      });
      await waitFor(
        'all deliveries',
        async () => new Set(rx.received.map((r) => r.headers['x-event-id'])).size === n,
        180_000,
        500,
      );
      await rx.close();
    },
  );
});
