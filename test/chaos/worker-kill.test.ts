import { describe, expect, it } from 'vitest';
import { newTenant, waitFor, type Tenant } from '../support/api.js';
import { batchChunks, workerSessions, workerSessionsEnded, type Chunk } from '../support/worker-death.js';
import { chaos, differences, makeUsers, messageCount, sql, submit, waitForBatches, wire } from './support.js';

const USERS = 2_000;
/** The API takes at most 1,000 users per submission: the 2,000 users go in as two batches. */
const PER_SUBMISSION = 1_000;
const SEGMENTS = [
  { id: 'everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
  { id: 'unhappy', rule: { field: 'avg_sentiment', op: '<', value: 0 } },
];

async function submitAll(t: Tenant): Promise<number[]> {
  const ids: number[] = [];
  for (let from = 0; from < USERS; from += PER_SUBMISSION) {
    const res = await submit(t, makeUsers('kill', PER_SUBMISSION, from));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    ids.push(res.body.source_id);
  }
  return ids;
}

/** Per user: message counts, aggregates and the exact events (segment, type, seq, score). */
async function outcome(projectId: number) {
  const users = await sql(
    `SELECT u.user_id, u.message_count, u.aggregates, (SELECT count(*)::int FROM messages m WHERE m.user_pk = u.id) AS messages
       FROM users u WHERE u.project_id = $1 ORDER BY u.user_id`,
    [projectId],
  );
  const events = await sql(
    `SELECT user_id, segment_slug, event_type, seq, score FROM events WHERE project_id = $1 ORDER BY user_id, segment_slug, seq`,
    [projectId],
  );
  const byUser = new Map<string, unknown[]>();
  for (const e of events)
    byUser.set(e.user_id, [
      ...(byUser.get(e.user_id) ?? []),
      { segment: e.segment_slug, type: e.event_type, seq: e.seq, score: e.score },
    ]);
  return { users, byUser, eventCount: events.length };
}

describe('worker SIGKILLed in the middle of a 2,000-user batch', () => {
  it('ends with exactly the messages, aggregates and events of a clean run', { timeout: 1_200_000 }, async () => {
    const killed = await newTenant('killed-run');
    await wire(killed, undefined, SEGMENTS);
    const sources = await submitAll(killed);

    await expect.poll(() => messageCount(sources), { timeout: 300_000, interval: 100 }).toBeGreaterThanOrEqual(300);
    expect(await workerSessions()).toBeGreaterThan(0);
    await chaos('worker/kill');
    let atKill = 0;
    let whileDead = 0;
    let retried: Chunk[] = [];
    // The worker comes back whatever is asserted here.
    try {
      // Every commit the dead worker sent is in once PostgreSQL has ended its sessions.
      await workerSessionsEnded();
      atKill = await messageCount(sources);
      expect(atKill).toBeLessThan(USERS); // really in the middle
      // While it is dead, the chunks it was running are taken for lost (their heartbeat times out)
      // and wait for a worker on their next attempt; none runs. Read then, the count has not moved.
      retried = await waitFor(
        'the lost chunks waiting for a worker',
        async () => {
          const open = (await Promise.all(sources.map(batchChunks))).flat().filter((c) => c.state !== 'completed');
          const again = open.filter((c) => c.attempt > 1);
          return open.every((c) => c.state === 'scheduled') && again.length > 0 && again;
        },
        120_000,
        500,
      );
      whileDead = await messageCount(sources);
      expect(whileDead).toBe(atKill);
    } finally {
      await chaos('worker/start');
    }
    const done = await waitForBatches(sources, 600_000);
    for (const id of sources) expect(done.get(id)).toEqual({ processed: PER_SUBMISSION, failed: 0 });
    console.log(
      `[worker-kill] killed with ${atKill}/${USERS} messages stored (${whileDead} while dead, ${retried.length} chunks lost and retried); both batches completed after restart`,
    );

    // The clean run: the same users and texts in another project, nothing killed.
    const clean = await newTenant('clean-run');
    await wire(clean, undefined, SEGMENTS);
    await waitForBatches(await submitAll(clean), 600_000);

    const [a, b] = [await outcome(killed.projectId), await outcome(clean.projectId)];
    expect(a.users).toHaveLength(USERS);
    expect(a.users.filter((u) => u.message_count !== 1 || u.messages !== 1)).toEqual([]);
    // (source_id, item_idx) is unique; the total proves no item was skipped either.
    expect(await messageCount(sources)).toBe(USERS);
    const cleanUsers = new Map(b.users.map((u) => [u.user_id, u]));
    const aggregateDiffs = a.users.flatMap((u) =>
      differences(u.aggregates, cleanUsers.get(u.user_id)?.aggregates, 1e-9, u.user_id),
    );
    expect(aggregateDiffs).toEqual([]);
    // Events: the same per user as the clean run, so none twice and none lost.
    expect(a.eventCount).toBe(b.eventCount);
    expect(a.eventCount).toBeGreaterThanOrEqual(USERS); // everyone joins `everyone`
    const eventDiffs = a.users.flatMap((u) =>
      differences(a.byUser.get(u.user_id), b.byUser.get(u.user_id), 1e-9, `${u.user_id}.events`),
    );
    expect(eventDiffs).toEqual([]);
    console.log(
      `[worker-kill] ${USERS} users: 1 message each, aggregates equal to the clean run (1e-9), ${a.eventCount} events equal per user`,
    );
  });
});
