import { readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { newTenant, stack } from '../support/api.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import {
  chaos,
  expectEachEventDeliveredOnce,
  makeUsers,
  restartableReceiver,
  sql,
  submit,
  undeliveredEvents,
  waitForBatches,
  wire,
} from './support.js';

const USERS = 150;
const BATCHES = 4;
const SEGMENTS = [
  { id: 'everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
  // Joined at the third message, whatever order the batches are folded in.
  { id: 'regulars', rule: { field: 'window_size', op: '>=', value: 3 } },
];

/** Lines of a log written since `from` (a byte offset) that contain `text`. */
function countSince(file: string, from: number, text: string): number {
  return readFileSync(file)
    .subarray(from)
    .toString('utf8')
    .split('\n')
    .filter((l) => l.includes(text)).length;
}
const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

describe('two workers on the same task queue and database', () => {
  afterAll(() => chaos('worker2/kill'));

  it('processes no message twice and sends no event twice', { timeout: 600_000 }, async () => {
    const { logs } = stack();
    const from = { worker: sizeOf(logs.worker), worker2: sizeOf(logs.worker2) };
    await chaos('worker2/start');
    const rx = await restartableReceiver();
    const t = await newTenant('two-workers');
    await wire(t, rx.url, SEGMENTS);

    // The same users in every batch, each batch a later day: concurrent folds of one user serialise.
    const sources = await Promise.all(
      Array.from({ length: BATCHES }, async (_, b) => {
        const users = makeUsers('tw', USERS).map((u) => ({
          ...u,
          text: `${u.text} [batch ${b}]`,
          timestamp: `2026-01-0${b + 1}T12:00:00Z`,
        }));
        const res = await submit(t, users);
        expect(res.status).toBe(202);
        return res.body.source_id as number;
      }),
    );
    const done = await waitForBatches(sources, 400_000);
    for (const id of sources) expect(done.get(id)).toEqual({ processed: USERS, failed: 0 });

    const [messages] = await sql(
      'SELECT count(*)::int AS n, count(DISTINCT (source_id, item_idx))::int AS distinct_items FROM messages WHERE source_id = ANY($1)',
      [sources],
    );
    expect(messages).toEqual({ n: USERS * BATCHES, distinct_items: USERS * BATCHES });
    const users = await sql('SELECT user_id, message_count FROM users WHERE project_id = $1', [t.projectId]);
    expect(users).toHaveLength(USERS);
    expect(users.filter((u) => u.message_count !== BATCHES)).toEqual([]);
    const perUser = await sql(
      `SELECT user_id, count(*) FILTER (WHERE segment_slug = 'everyone')::int AS everyone, count(*) FILTER (WHERE segment_slug = 'regulars')::int AS regulars
         FROM events WHERE project_id = $1 GROUP BY user_id`,
      [t.projectId],
    );
    expect(perUser).toHaveLength(USERS);
    expect(perUser.filter((e) => e.everyone !== 1 || e.regulars !== 1)).toEqual([]);

    await expect.poll(() => undeliveredEvents(t.projectId), { timeout: 180_000, interval: 500 }).toBe(0);
    await deliveriesQuiet({ pipelineId: t.pipelineId }, 120_000); // no run left that could send a duplicate
    const events = await expectEachEventDeliveredOnce(t.projectId, rx.successes());
    expect(events).toBe(USERS * SEGMENTS.length);

    // Both workers really took part.
    const chunks = {
      worker: countSince(logs.worker, from.worker, '"chunk analysed"'),
      worker2: countSince(logs.worker2, from.worker2, '"chunk analysed"'),
    };
    const attempts = {
      worker: countSince(logs.worker, from.worker, '"webhook attempt"'),
      worker2: countSince(logs.worker2, from.worker2, '"webhook attempt"'),
    };
    expect(chunks.worker).toBeGreaterThan(0);
    expect(chunks.worker2).toBeGreaterThan(0);
    console.log(
      `[two-workers] ${BATCHES} concurrent batches of the same ${USERS} users: ${USERS * BATCHES} messages once each, message_count ${BATCHES} for all; ` +
        `${events} events each delivered once; chunks ${chunks.worker}+${chunks.worker2}, delivery attempts ${attempts.worker}+${attempts.worker2} (worker+worker2)`,
    );
    await rx.stop();
  });
});
