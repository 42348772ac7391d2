import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitFor, waitForBatch, withDb, type Tenant } from '../support/api.js';

/**
 * A segment deleted or undeployed while a batch of 300 users is being folded: every message is
 * still processed exactly once, and memberships and events follow the segment's state (no
 * membership of a deleted segment, no member of an undeployed one, and no event committed after
 * the delete or undeploy answered).
 */
const USERS = 300;

/**
 * Runs `change` and reads the ids of the project's events right after it answers, on a connection
 * opened beforehand so the read follows the answer closely. The change answers after it commits
 * and a fold holds the segment rows FOR SHARE until its own commit, so every event a fold wrote
 * before the change is already visible here; an id the batch adds later is an event written after
 * the change. (An event committed between the change's commit and this read would be missed.)
 */
async function eventsRightAfter(t: Tenant, change: () => Promise<void>): Promise<number[]> {
  const db = new pg.Client({ connectionString: stack().databaseUrl });
  await db.connect();
  try {
    await change();
    return await eventIds(db, t.projectId);
  } finally {
    await db.end();
  }
}

async function eventIds(db: pg.Client, projectId: number): Promise<number[]> {
  const { rows } = await db.query('SELECT id FROM events WHERE project_id = $1 ORDER BY id', [projectId]);
  return rows.map((r) => Number(r.id));
}

async function deployEveryone(t: Tenant, id: string): Promise<string> {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}/segments`;
  const rule = { field: 'window_size', op: '>=', value: 1 };
  expect((await call('POST', base, { key: t.key, body: { id, name: id, rule } })).status).toBe(201);
  expect((await call('POST', `${base}/${id}/deploy`, { key: t.key })).status).toBe(200);
  return `${base}/${id}`;
}

/** Submits the batch and waits until a sixth of it is folded, so the change lands mid-batch. */
async function startBatch(t: Tenant, tag: string): Promise<number> {
  const users = Array.from({ length: USERS }, (_, k) => ({
    user_id: `${tag}-${k}`,
    text: `Message ${k}: the reports page keeps timing out.`,
  }));
  const r = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
  expect(r.status).toBe(202);
  const sourceId = r.body.source_id as number;
  await waitFor(
    'the batch to be under way',
    () =>
      withDb(async (db) => {
        const { rows } = await db.query('SELECT count(*)::int AS n FROM messages WHERE source_id = $1', [sourceId]);
        return rows[0].n >= USERS / 6;
      }),
    120_000,
    50,
  );
  return sourceId;
}

async function expectEveryMessageOnce(sourceId: number): Promise<void> {
  const done = await waitForBatch(sourceId, 240_000);
  expect(done).toEqual({ processed: USERS, failed: 0 });
  await withDb(async (db) => {
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM messages WHERE source_id = $1) AS messages,
              (SELECT count(DISTINCT item_idx)::int FROM messages WHERE source_id = $1) AS items,
              (SELECT count(*)::int FROM source_items WHERE source_id = $1 AND error IS NOT NULL) AS errors`,
      [sourceId],
    );
    expect(rows[0]).toEqual({ messages: USERS, items: USERS, errors: 0 });
  });
}

describe('segment changes during a batch', () => {
  it('a segment deleted mid-batch: every message processed once, nothing left of the segment', async () => {
    const t = await newTenant('delete-race');
    const path = await deployEveryone(t, 'everyone');
    const sourceId = await startBatch(t, 'del');
    const atDelete = await eventsRightAfter(t, async () => {
      expect((await call('DELETE', path, { key: t.key })).status).toBe(204);
    });
    await expectEveryMessageOnce(sourceId);
    // No event was committed after the delete answered: the project's events are the ones seen then.
    expect(await withDb((db) => eventIds(db, t.projectId))).toEqual(atDelete);
    await withDb(async (db) => {
      const { rows } = await db.query(
        `SELECT (SELECT count(*)::int FROM segments WHERE project_id = $1) AS segments,
                (SELECT count(*)::int FROM segment_memberships m JOIN users u ON u.id = m.user_pk WHERE u.project_id = $1) AS memberships,
                (SELECT count(*)::int FROM events WHERE project_id = $1) AS events,
                (SELECT count(DISTINCT user_pk)::int FROM events WHERE project_id = $1) AS event_users,
                (SELECT count(*)::int FROM events WHERE project_id = $1 AND segment_pk IS NOT NULL) AS attached`,
        [t.projectId],
      );
      // Users folded before the delete entered (one event each, kept with the segment detached); none after.
      expect(rows[0].segments).toBe(0);
      expect(rows[0].memberships).toBe(0);
      expect(rows[0].attached).toBe(0);
      expect(rows[0].events).toBe(rows[0].event_users);
      expect(rows[0].events).toBeGreaterThan(0);
      expect(rows[0].events).toBeLessThan(USERS);
    });
  });

  it('a segment undeployed mid-batch: no member and no event after the undeploy, and a redeploy adds everyone', async () => {
    const t = await newTenant('undeploy-race');
    const path = await deployEveryone(t, 'everyone');
    const sourceId = await startBatch(t, 'und');
    const atUndeploy = await eventsRightAfter(t, async () => {
      const undeploy = await call('POST', `${path}/undeploy`, { key: t.key });
      expect(undeploy.status).toBe(200);
      expect(undeploy.body.status).toBe('draft');
    });
    await expectEveryMessageOnce(sourceId);
    // No event was committed after the undeploy answered: the project's events are the ones seen then.
    expect(await withDb((db) => eventIds(db, t.projectId))).toEqual(atUndeploy);

    const members = await call('GET', `${path}/users?limit=1000`, { key: t.key });
    expect(members.body.total).toBe(0);
    const before = await withDb(async (db) => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS events, count(DISTINCT user_pk)::int AS users, max(id) AS last FROM events WHERE project_id = $1`,
        [t.projectId],
      );
      return rows[0];
    });
    // One user_added per user folded before the undeploy, none after it.
    expect(before.events).toBe(before.users);
    expect(before.events).toBeLessThan(USERS);

    // Deploying again starts afresh: every one of the users enters, each with exactly one new user_added.
    expect((await call('POST', `${path}/deploy`, { key: t.key })).status).toBe(200);
    await waitFor(
      'the redeploy evaluation',
      async () => (await call('GET', `${path}/users?limit=1`, { key: t.key })).body.total === USERS,
      120_000,
    );
    await withDb(async (db) => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS added, count(DISTINCT user_pk)::int AS users FROM events
          WHERE project_id = $1 AND id > $2 AND event_type = 'user_added'`,
        [t.projectId, before.last ?? 0],
      );
      expect(rows[0]).toEqual({ added: USERS, users: USERS });
    });
  });
});
