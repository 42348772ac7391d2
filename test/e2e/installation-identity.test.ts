import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/api.js';
import { deliveriesQuiet } from '../support/quiescence.js';
import { startReceiver } from '../support/receiver.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';

/**
 * Workflow ids must stay unique beyond one database. Every installation here uses the stack's
 * Temporal namespace and the same TEMPORAL_TASK_QUEUE, and each database hands out the same serial
 * ids (tenant 1, project 1, source 1, event 1, webhook 1, segment 1): before installation ids, the
 * second database's `batch-1` was refused as a duplicate of the first's and never processed.
 */
const TASK_QUEUE = `identity-${process.pid}`;
const PREFIX = `identity_${process.pid}`;
const databases: string[] = [];
const running: Instance[] = [];

async function database(name: string, template?: string): Promise<string> {
  databases.push(`${PREFIX}_${name}`);
  return createDatabase(`${PREFIX}_${name}`, template && `${PREFIX}_${template}`);
}

async function instance(url: string): Promise<Instance> {
  const i = await startInstance(url, TASK_QUEUE);
  running.push(i);
  return i;
}

async function stop(i: Instance): Promise<void> {
  await i.stop();
  running.splice(running.indexOf(i), 1);
}

async function count(url: string, sql: string, params: unknown[] = []): Promise<number> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const { rows } = await db.query(sql, params);
    return Number(rows[0].n);
  } finally {
    await db.end();
  }
}

interface Setup {
  key: string;
  projectId: number;
  pipelineId: number;
}

/** A tenant, project and pipeline, a webhook to the receiver, and a segment everyone enters (deployed). */
async function setUp(i: Instance, receiverUrl: string): Promise<Setup> {
  const t = await i.call('POST', '/admin/v1/tenants', { body: { name: 'identity' } });
  expect(t.status).toBe(201);
  const key = t.body.api_key as string;
  const p = await i.call('POST', '/api/v1/projects', { key, body: { name: 'p' } });
  const pl = await i.call('POST', `/projects/${p.body.id}/pipelines`, { key, body: { name: 'main' } });
  const base = `/projects/${p.body.id}/pipelines/${pl.body.id}`;
  expect(
    (await i.call('POST', `${base}/webhooks`, { key, body: { url: receiverUrl, events: ['user_added'] } })).status,
  ).toBe(201);
  const rule = { field: 'window_size', op: '>=', value: 1 };
  expect(
    (await i.call('POST', `${base}/segments`, { key, body: { id: 'everyone', name: 'Everyone', rule } })).status,
  ).toBe(201);
  expect((await i.call('POST', `${base}/segments/everyone/deploy`, { key })).status).toBe(200);
  return { key, projectId: p.body.id, pipelineId: pl.body.id };
}

/**
 * Sends `n` new users, waits until the batch is processed in this installation's database, then
 * deploys a second segment over the existing profiles (the evaluation workflow) and waits until
 * the receiver has the `user_added` of both segments for every user.
 */
async function run(i: Instance, s: Setup, receiver: { received: unknown[] }, tag: string, n: number): Promise<number> {
  const before = receiver.received.length;
  const deployed = await count(i.databaseUrl, `SELECT count(*) AS n FROM segments WHERE status = 'deployed'`);
  const users = Array.from({ length: n }, (_, k) => ({
    user_id: `${tag}-${k}`,
    text: 'The new dashboard is great, thanks!',
  }));
  const r = await i.call('POST', '/api/v1/users', { key: s.key, body: { project_id: s.projectId, users } });
  expect(r.status).toBe(202);
  const sourceId = r.body.source_id as number;
  await waitFor(
    `batch ${sourceId} of ${tag}`,
    async () =>
      (await count(
        i.databaseUrl,
        'SELECT count(*) AS n FROM sources WHERE id = $1 AND completed_at IS NOT NULL AND processed = $2',
        [sourceId, n],
      )) === 1,
    60_000,
  );
  const base = `/projects/${s.projectId}/pipelines/${s.pipelineId}`;
  const segment = `late-${tag}`;
  const rule = {
    all: [
      { field: 'window_size', op: '>=', value: 1 },
      { field: 'avg_sentiment', op: '>=', value: -1 },
    ],
  };
  expect(
    (await i.call('POST', `${base}/segments`, { key: s.key, body: { id: segment, name: segment, rule } })).status,
  ).toBe(201);
  expect((await i.call('POST', `${base}/segments/${segment}/deploy`, { key: s.key })).status).toBe(200);
  const members = await waitFor(
    `members of ${segment}`,
    async () => {
      const m = await i.call('GET', `${base}/segments/${segment}/users?limit=1000`, { key: s.key });
      return (
        m.body.users.filter((u: { user_id: string }) => u.user_id.startsWith(`${tag}-`)).length === n &&
        m.body.users.length
      );
    },
    60_000,
  );
  // The new users enter each segment deployed before the batch; every profile of the project enters the late one.
  const expected = deployed * n + members;
  await waitFor(`deliveries of ${tag}`, async () => receiver.received.length - before >= expected, 60_000);
  // And nothing twice, read once no delivery of the pipeline can still send (test/support/quiescence.ts).
  await deliveriesQuiet({ pipelineId: s.pipelineId, databaseUrl: i.databaseUrl });
  expect(receiver.received.length - before).toBe(expected);
  return members;
}

afterAll(async () => {
  for (const i of [...running]) await stop(i);
  for (const d of databases) await dropDatabase(d).catch(() => undefined);
});

describe('installation identity: several databases on one Temporal namespace', () => {
  it('processes and delivers everything on a new empty database after a first one used the same Temporal', async () => {
    const r1 = await startReceiver();
    const r2 = await startReceiver();
    try {
      const db1 = await database('first');
      const first = await instance(db1);
      const s1 = await setUp(first, r1.url);
      await run(first, s1, r1, 'a', 5);
      await stop(first);

      // Same serial ids in a fresh database: source 1, events 1.., webhook 1, segment 1.
      const db2 = await database('second');
      const second = await instance(db2);
      const s2 = await setUp(second, r2.url);
      expect([s2.projectId, s2.pipelineId]).toEqual([s1.projectId, s1.pipelineId]);
      await run(second, s2, r2, 'b', 5);
      expect(await count(db2, 'SELECT count(*) AS n FROM messages')).toBe(5);
      // Each event arrived once at this installation's receiver; the first receiver got nothing more.
      const ids = r2.received.map((x) => x.headers['x-event-id']);
      expect(new Set(ids).size).toBe(10);
      expect(ids.length).toBe(10);
      expect(r1.received.length).toBe(10);
      await stop(second);
    } finally {
      await r1.close();
      await r2.close();
    }
  });

  it('runs two installations with two databases on one namespace at once, each on its own data', async () => {
    const ra = await startReceiver();
    const rb = await startReceiver();
    try {
      const [dbA, dbB] = [await database('left'), await database('right')];
      const [a, b] = await Promise.all([instance(dbA), instance(dbB)]);
      const [sa, sb] = await Promise.all([setUp(a, ra.url), setUp(b, rb.url)]);
      await Promise.all([run(a, sa, ra, 'left', 8), run(b, sb, rb, 'right', 6)]);
      // Nothing crossed over: each database holds exactly its own messages, each receiver its own events.
      expect(
        await count(
          dbA,
          `SELECT count(*) AS n FROM messages m JOIN users u ON u.id = m.user_pk WHERE u.user_id LIKE 'left-%'`,
        ),
      ).toBe(8);
      expect(await count(dbA, 'SELECT count(*) AS n FROM messages')).toBe(8);
      expect(await count(dbB, 'SELECT count(*) AS n FROM messages')).toBe(6);
      expect(ra.received.length).toBe(16);
      expect(rb.received.length).toBe(12);
      expect(ra.received.every((x) => JSON.parse(x.body).user.id.startsWith('left-'))).toBe(true);
      expect(rb.received.every((x) => JSON.parse(x.body).user.id.startsWith('right-'))).toBe(true);
      await Promise.all([stop(a), stop(b)]);
    } finally {
      await ra.close();
      await rb.close();
    }
  });

  it('processes a batch on a restored backup whose serial ids were already used after the backup', async () => {
    const receiver = await startReceiver();
    try {
      const live = await database('live');
      let i = await instance(live);
      const s = await setUp(i, receiver.url);
      await run(i, s, receiver, 'before-backup', 3);
      await stop(i);
      // The backup: a copy of the database as it is now (same installation id).
      const backup = await database('backup', 'live');
      i = await instance(live);
      await run(i, s, receiver, 'after-backup', 3);
      await stop(i);

      // Restore the backup and go on: the next batch gets the source id the lost one had.
      i = await instance(backup);
      const before = receiver.received.length;
      await run(i, s, receiver, 'restored', 4);
      expect(
        await count(
          i.databaseUrl,
          `SELECT count(*) AS n FROM messages m JOIN users u ON u.id = m.user_pk WHERE u.user_id LIKE 'restored-%'`,
        ),
      ).toBe(4);
      // 4 users x 2 segments of the backup (everyone, late-before-backup), and all 7 profiles of the restored database enter late-restored.
      expect(receiver.received.length - before).toBe(4 * 2 + 7);
      await stop(i);
    } finally {
      await receiver.close();
    }
  });
});
