import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, control, newTenant, waitFor, waitForBatch, withDb, type Tenant } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';
import { batchChunks, holds, workerSessions, workerSessionsEnded, type Chunk } from '../support/worker-death.js';

/**
 * A user's data rights through the public API (issue 37; docs/privacy.md): erasure down to the
 * last row, suppression, export, retention, and erasures racing batches in flight.
 */
const SECRET = 'whsec-privacy-0123456789';
const NEGATIVE = 'Terrible service, the app crashes every day and I want to cancel my subscription now.';
const SEGMENTS = [
  { name: 'Everyone', id: 'everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
  { name: 'Unhappy', id: 'unhappy', rule: { field: 'avg_sentiment', op: '<', value: 0 } },
];

const tag = () => randomBytes(6).toString('hex');

async function submit(t: Tenant, users: { user_id: string; text: string; timestamp?: string }[]) {
  const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { accepted: number; source_id: number; suppressed?: number };
}

async function deploySegments(t: Tenant) {
  const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
  for (const s of SEGMENTS) {
    const created = await call('POST', `${base}/segments`, { key: t.key, body: s });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const deployed = await call('POST', `${base}/segments/${s.id}/deploy`, { key: t.key });
    expect(deployed.body.status).toBe('deployed');
  }
}

/** Every row of every table of the service's database whose text holds one of `needles`. */
async function rowsHolding(needles: string[]): Promise<{ table: string; row: string }[]> {
  return withDb(async (db) => {
    const { rows: tables } = await db.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    expect(tables.length).toBeGreaterThan(15);
    const found: { table: string; row: string }[] = [];
    for (const { table_name } of tables) {
      const { rows } = await db.query(
        `SELECT t::text AS row FROM "${table_name}" t WHERE ${needles.map((_, i) => `strpos(t::text, $${i + 1}) > 0`).join(' OR ')}`,
        needles,
      );
      for (const r of rows) found.push({ table: table_name, row: r.row });
    }
    return found;
  });
}

describe('erasure', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    // A receiver that echoes what it was sent, as some do: its answer names the user.
    receiver = await startReceiver((_n, r) => ({ status: 200, body: `received ${r.body}` }));
  });
  afterAll(() => receiver.close());

  it('removes a user with messages, a profile, two memberships and deliveries from every table, and tells the receiver', async () => {
    const t = await newTenant('erasure');
    await deploySegments(t);
    const hook = await call('POST', `/projects/${t.projectId}/pipelines/${t.pipelineId}/webhooks`, {
      key: t.key,
      body: { url: receiver.url, secret: SECRET, events: ['user_added', 'user_removed'] },
    });
    expect(hook.status).toBe(201);
    const who = `erase-${tag()}`;
    const markers = [0, 1, 2].map(() => `marker${tag()}`);
    const first = await submit(t, [
      { user_id: who, text: `${NEGATIVE} ${markers[0]}` },
      { user_id: 'bystander', text: 'Lovely product, thanks for the quick help.' },
    ]);
    await waitForBatch(first.source_id);
    await waitForBatch((await submit(t, [{ user_id: who, text: `${NEGATIVE} ${markers[1]}` }])).source_id);
    await waitForBatch((await submit(t, [{ user_id: who, text: `${NEGATIVE} ${markers[2]}` }])).source_id);
    const bodies = () => receiver.received.map((r) => ({ r, body: JSON.parse(r.body) }));
    await waitFor('both user_added delivered', async () => {
      const added = bodies().filter((x) => x.body.user?.id === who && x.body.event_type === 'user_added');
      return added.length === 2;
    });
    // Before: the user is in every table the scan is about to clear.
    expect((await rowsHolding([who, ...markers])).map((f) => f.table)).toEqual(
      expect.arrayContaining(['events', 'messages', 'source_items', 'users']),
    );

    const erased = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key });
    expect(erased.status, JSON.stringify(erased.body)).toBe(202);
    expect(erased.body).toMatchObject({
      kind: 'erasure',
      state: 'completed',
      project_id: t.projectId,
      suppressed: false,
      requested_by: t.key.slice(0, 8),
      counts: { messages: 3, batch_items: 3, profiles: 1, memberships: 2, user_removed_events: 2, events: 2 },
    });
    expect(erased.body.user_id_hash).toMatch(/^[0-9a-f]{64}$/);
    const again = await call('GET', `/api/v1/erasures/${erased.body.id}`, { key: t.key });
    expect(again.body).toEqual(erased.body);

    // Both segments announce the user's removal, signed, with the reason.
    const removed = await waitFor('both user_removed delivered', async () => {
      const r = bodies().filter((x) => x.body.user?.id === who && x.body.event_type === 'user_removed');
      return r.length === 2 && r;
    });
    expect(removed.map((x) => x.body.segment.id).sort()).toEqual(['everyone', 'unhappy']);
    for (const { r, body } of removed) {
      expect(body.reason).toBe('erased');
      expect(r.headers['x-webhook-signature']).toBe(createHmac('sha256', SECRET).update(r.body).digest('hex'));
    }

    // Their attempts are recorded with the status only: the receiver's echo is not kept (kept-answer.ts),
    // while an ordinary event's answer is, for the operator to debug.
    const answers = await waitFor('both user_removed attempts recorded', () =>
      withDb(async (db) => {
        const { rows } = await db.query(
          `SELECT e.user_id, e.event_type, d.status_code, d.response_body
             FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
            WHERE e.project_id = $1 ORDER BY d.id`,
          [t.projectId],
        );
        const removed = rows.filter((r) => r.event_type === 'user_removed').length;
        return removed === 2 && rows.some((r) => r.user_id === 'bystander') && rows;
      }),
    );
    for (const a of answers.filter((r) => r.event_type === 'user_removed')) {
      expect(a).toMatchObject({ status_code: 200, response_body: expect.stringMatching(/^receiver answered 200; /) });
    }
    expect(answers.find((r) => r.user_id === 'bystander')?.response_body).toContain('"id":"bystander"');

    // Not a row left, but the audit's (the hash, not the id) and the user_removed events (the id only).
    const left = (await rowsHolding([who, ...markers])).filter(
      (f) => !(f.table === 'events' && f.row.includes('user_removed')),
    );
    expect(left).toEqual([]);
    const events = await withDb(
      async (db) =>
        (
          await db.query(`SELECT event_type, reason, user_pk FROM events WHERE project_id = $1 AND user_id = $2`, [
            t.projectId,
            who,
          ])
        ).rows,
    );
    expect(events).toEqual([
      { event_type: 'user_removed', reason: 'erased', user_pk: null },
      { event_type: 'user_removed', reason: 'erased', user_pk: null },
    ]);

    // The public API forgets them; the bystander stays.
    for (const path of [
      `/api/v1/profiles/${who}`,
      `/api/v1/profiles/${who}/timeline`,
      `/api/v1/profiles/${who}/export`,
    ]) {
      expect((await call('GET', `${path}?project_id=${t.projectId}`, { key: t.key })).status, path).toBe(404);
    }
    expect((await call('GET', `/api/v1/profiles/bystander?project_id=${t.projectId}`, { key: t.key })).status).toBe(
      200,
    );
    const members = await call('GET', `/projects/${t.projectId}/pipelines/${t.pipelineId}/segments/everyone/users`, {
      key: t.key,
    });
    expect(members.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['bystander']);

    // Idempotent: again, zero counts; the audit trail lists both, found by the id too.
    const twice = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key });
    expect(twice.status).toBe(202);
    expect(twice.body.counts).toEqual({
      messages: 0,
      batch_items: 0,
      profiles: 0,
      memberships: 0,
      user_removed_events: 0,
      events: 0,
    });
    const trail = await call('GET', `/api/v1/erasures?project_id=${t.projectId}&user_id=${who}`, { key: t.key });
    expect(trail.body.erasures.map((e: { id: string }) => e.id)).toEqual([twice.body.id, erased.body.id]);
  });

  it('over gRPC too, and another tenant gets NOT_FOUND', async () => {
    const t = await newTenant('erasure-grpc');
    const other = await newTenant('erasure-grpc-other');
    const who = `grpc-${tag()}`;
    await waitForBatch((await submit(t, [{ user_id: who, text: NEGATIVE }])).source_id);
    const { profiles } = grpcClients();
    try {
      await expect(
        rpc(
          profiles,
          'deleteProfile',
          { projectId: t.projectId, userId: who, suppress: false },
          keyMetadata(other.key),
        ),
      ).rejects.toMatchObject({ code: 5 });
      const r = await rpc(
        profiles,
        'deleteProfile',
        { projectId: t.projectId, userId: who, suppress: false },
        keyMetadata(t.key),
      );
      expect(r.erasure).toMatchObject({ state: 'completed', counts: { messages: 1, profiles: 1 } });
      await expect(
        rpc(profiles, 'getErasure', { erasureId: r.erasure!.id }, keyMetadata(other.key)),
      ).rejects.toMatchObject({
        code: 5,
      });
      const got = await rpc(profiles, 'getErasure', { erasureId: r.erasure!.id }, keyMetadata(t.key));
      expect(got.erasure?.id).toBe(r.erasure!.id);
      expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    } finally {
      profiles.close();
    }
  });
});

describe('suppression', () => {
  it('skips and counts a suppressed id in later batches, processes the others, and can be lifted', async () => {
    const t = await newTenant('suppression');
    const who = `suppress-${tag()}`;
    await waitForBatch((await submit(t, [{ user_id: who, text: NEGATIVE }])).source_id);
    const erased = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}&suppress=true`, {
      key: t.key,
    });
    expect(erased.status).toBe(202);
    expect(erased.body).toMatchObject({ suppressed: true, counts: { messages: 1 } });

    const later = await submit(t, [
      { user_id: 'alpha', text: 'Great support today.' },
      { user_id: who, text: `${NEGATIVE} suppressed${tag()}` },
      { user_id: 'beta', text: 'The invoice is wrong again.' },
    ]);
    expect(later).toMatchObject({ accepted: 2, suppressed: 1 });
    expect(await waitForBatch(later.source_id)).toEqual({ processed: 2, failed: 0 });
    const outcome = await call('GET', `/api/v1/batches/${later.source_id}?project_id=${t.projectId}`, { key: t.key });
    expect(outcome.body).toMatchObject({
      status: 'completed',
      accepted: 2,
      suppressed: 1,
      processed: 2,
      failed: 0,
      erased: 0,
    });
    expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    for (const u of ['alpha', 'beta'])
      expect((await call('GET', `/api/v1/profiles/${u}?project_id=${t.projectId}`, { key: t.key })).status).toBe(200);
    // Stored as the keyed hash, never the id.
    expect(await rowsHolding([who])).toEqual([]);

    const list = await call('GET', `/api/v1/suppressions?project_id=${t.projectId}`, { key: t.key });
    expect(list.body.suppressions).toEqual([
      { user_id_hash: erased.body.user_id_hash, created_at: expect.any(String), erasure_id: erased.body.id },
    ]);
    const other = await newTenant('suppression-other');
    expect((await call('GET', `/api/v1/suppressions?project_id=${t.projectId}`, { key: other.key })).status).toBe(404);
    expect(
      (await call('DELETE', `/api/v1/suppressions/${who}?project_id=${t.projectId}`, { key: other.key })).status,
    ).toBe(404);

    expect((await call('DELETE', `/api/v1/suppressions/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(
      204,
    );
    expect((await call('DELETE', `/api/v1/suppressions/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(
      404,
    );
    const after = await submit(t, [{ user_id: who, text: 'Back again, and happy this time.' }]);
    expect(after.accepted).toBe(1);
    expect(after.suppressed).toBeUndefined();
    await waitForBatch(after.source_id);
    expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(200);
  });
});

describe('export', () => {
  const MESSAGES = 2_500;

  // What an open export costs the api (memory, the tenant's place, the send timeout) is asserted
  // with a 50 MB export and stalled clients in export-bounds.test.ts.
  it(`streams everything about a user with ${MESSAGES.toLocaleString('en')} analysed messages, in order`, async () => {
    const t = await newTenant('export');
    const who = `export-${tag()}`;
    await waitForBatch((await submit(t, [{ user_id: who, text: `${NEGATIVE} message-0` }])).source_id);
    // The other 2,499 messages are copies of the analysed one with texts of their own, written
    // straight to the table: this measures the export, not the analysis (35 messages/s here).
    await withDb((db) =>
      db.query(
        `INSERT INTO messages (user_pk, source_id, item_idx, written_at, source_label, text, sentiment, topics, intentions, churn_words, embedding)
         SELECT m.user_pk, m.source_id, m.item_idx + g, m.written_at + g * interval '1 minute', m.source_label,
                repeat('padding ', 60) || 'message-' || g, m.sentiment, m.topics, m.intentions, m.churn_words, m.embedding
           FROM messages m JOIN users u ON u.id = m.user_pk, generate_series(1, $3::int - 1) g
          WHERE u.project_id = $1 AND u.user_id = $2`,
        [t.projectId, who, MESSAGES],
      ),
    );
    const res = await call('GET', `/api/v1/profiles/${who}/export?project_id=${t.projectId}`, { key: t.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    // Streamed: chunked, no length known up front.
    expect(res.headers.get('content-length')).toBeNull();
    const doc = res.body;
    expect(doc).toMatchObject({ user_id: who, project_id: t.projectId, profile: { user_id: who } });
    expect(doc.messages).toHaveLength(MESSAGES);
    const numbers = doc.messages.map((m: { text: string }) => Number(/message-(\d+)$/.exec(m.text)![1]));
    expect(numbers).toEqual(Array.from({ length: MESSAGES }, (_, i) => i));
    expect(doc.messages[0]).toMatchObject({ sentiment: expect.any(Number), topics: expect.any(Array) });

    const other = await newTenant('export-other');
    expect(
      (await call('GET', `/api/v1/profiles/${who}/export?project_id=${t.projectId}`, { key: other.key })).status,
    ).toBe(404);
  });
});

describe('retention', () => {
  it('erases the texts past the project setting, keeps their analysis, and the profile answers the same', async () => {
    const t = await newTenant('retention');
    const who = `retain-${tag()}`;
    const day = 86_400_000;
    const old = [`old${tag()}`, `old${tag()}`];
    const recent = `recent${tag()}`;
    const batch = await submit(t, [
      { user_id: who, text: `${NEGATIVE} ${old[0]}`, timestamp: new Date(Date.now() - 40 * day).toISOString() },
      {
        user_id: who,
        text: `The invoice doubled, too expensive. ${old[1]}`,
        timestamp: new Date(Date.now() - 35 * day).toISOString(),
      },
      {
        user_id: who,
        text: `Support fixed it quickly, thanks. ${recent}`,
        timestamp: new Date(Date.now() - 1 * day).toISOString(),
      },
    ]);
    await waitForBatch(batch.source_id);
    const profile = (await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).body;
    const profileVector: number[] = await withDb(
      async (db) =>
        (
          await db.query('SELECT profile_embedding FROM users WHERE project_id = $1 AND user_id = $2', [
            t.projectId,
            who,
          ])
        ).rows[0].profile_embedding,
    );
    const timeline = (await call('GET', `/api/v1/profiles/${who}/timeline?project_id=${t.projectId}`, { key: t.key }))
      .body;
    // Newest first, each with what was written.
    expect(timeline.timeline.map((m: { text: string }) => m.text.split(' ').at(-1))).toEqual([recent, old[1], old[0]]);

    const set = await call('PUT', `/api/v1/projects/${t.projectId}`, {
      key: t.key,
      body: { message_retention_days: 30 },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.message_retention_days).toBe(30);
    expect((await call('GET', `/api/v1/projects/${t.projectId}`, { key: t.key })).body.message_retention_days).toBe(30);

    const swept = await waitFor('a retention sweep', async () => {
      const r = await call('GET', `/api/v1/erasures?project_id=${t.projectId}&kind=retention`, { key: t.key });
      return r.body.erasures.length > 0 && r.body.erasures;
    });
    expect(swept[0]).toMatchObject({ kind: 'retention', requested_by: null, counts: { messages: 2, batch_items: 2 } });
    expect(await rowsHolding(old)).toEqual([]);
    expect((await rowsHolding([recent])).map((f) => f.table).sort()).toEqual(['messages', 'source_items']);
    const rows = await withDb(
      async (db) =>
        (
          await db.query(
            `SELECT m.text IS NULL AS erased, m.embedding IS NULL AS no_vector, m.text_erased_at IS NOT NULL AS stamped,
                  m.sentiment, m.topics
             FROM messages m JOIN users u ON u.id = m.user_pk WHERE u.project_id = $1 ORDER BY m.written_at`,
            [t.projectId],
          )
        ).rows,
    );
    expect(rows.map((r) => [r.erased, r.no_vector, r.stamped])).toEqual([
      [true, true, true],
      [true, true, true],
      [false, false, false],
    ]);
    for (const r of rows) expect(typeof r.sentiment).toBe('number');

    // What was learned stays: the same profile and timeline. What the profile derived from the erased
    // texts goes: its churn words are the recent message's only, its vector is the recent message's.
    const derived = await withDb(
      async (db) =>
        (
          await db.query(
            `SELECT u.profile_embedding AS profile, m.embedding AS recent, m.churn_words AS recent_words
               FROM users u JOIN messages m ON m.user_pk = u.id AND m.text IS NOT NULL
              WHERE u.project_id = $1 AND u.user_id = $2`,
            [t.projectId, who],
          )
        ).rows[0],
    );
    const cosine = (a: number[], b: number[]) =>
      a.reduce((s, x, i) => s + x * b[i], 0) / Math.hypot(...a) / Math.hypot(...b);
    expect(cosine(derived.profile, derived.recent)).toBeCloseTo(1, 5);
    expect(cosine(profileVector, derived.recent)).toBeLessThan(0.9999);
    const words = (p: { aggregates: { churn_risk_factors: { churn_words: string[] } } }) =>
      p.aggregates.churn_risk_factors.churn_words;
    // NEGATIVE ("... I want to cancel my subscription now") was read as churn: its words were there.
    expect(words(profile).filter((w) => !derived.recent_words.includes(w)).length).toBeGreaterThan(0);
    const after = (await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).body;
    expect(words(after)).toEqual([...new Set<string>(derived.recent_words)].slice(0, 5));
    const { churn_risk_factors: factorsAfter, ...aggregatesAfter } = after.aggregates;
    const { churn_risk_factors: factorsBefore, ...aggregatesBefore } = profile.aggregates;
    expect({ ...after, aggregates: aggregatesAfter }).toEqual({ ...profile, aggregates: aggregatesBefore });
    expect({ ...factorsAfter, churn_words: [] }).toEqual({ ...factorsBefore, churn_words: [] });
    // The timeline keeps every analysis; the two erased texts read null, the recent one stays.
    expect(
      (await call('GET', `/api/v1/profiles/${who}/timeline?project_id=${t.projectId}`, { key: t.key })).body,
    ).toEqual({
      ...timeline,
      timeline: timeline.timeline.map((m: { text: string }, i: number) => ({ ...m, text: i === 0 ? m.text : null })),
    });
    const exported = (await call('GET', `/api/v1/profiles/${who}/export?project_id=${t.projectId}`, { key: t.key }))
      .body;
    expect(exported.messages.map((m: { text: string | null }) => m.text === null)).toEqual([true, true, false]);

    // Refused with a clear error, nothing changed; null turns it off.
    const bad = await call('PUT', `/api/v1/projects/${t.projectId}`, {
      key: t.key,
      body: { message_retention_days: 0 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('message_retention_days');
    const other = await newTenant('retention-other');
    expect(
      (await call('PUT', `/api/v1/projects/${t.projectId}`, { key: other.key, body: { message_retention_days: 1 } }))
        .status,
    ).toBe(404);
    const off = await call('PUT', `/api/v1/projects/${t.projectId}`, {
      key: t.key,
      body: { message_retention_days: null },
    });
    expect(off.body.message_retention_days).toBeNull();
  });
});

describe('erasure racing a batch in flight', () => {
  /** A batch of `n` users where `who` writes every tenth item. */
  const racingBatch = (who: string, n: number, marker: string) =>
    Array.from({ length: n }, (_, i) =>
      i % 10 === 0
        ? { user_id: who, text: `${NEGATIVE} ${marker} ${i}` }
        : { user_id: `other-${i}`, text: `Message ${i}: the dashboard is slow on Mondays.` },
    );

  async function messagesOf(sourceId: number) {
    return withDb(async (db) =>
      Number((await db.query('SELECT count(*) FROM messages WHERE source_id = $1', [sourceId])).rows[0].count),
    );
  }

  it('the user does not come back from a batch accepted before the erasure, still in its chunks', async () => {
    const t = await newTenant('race');
    const who = `race-${tag()}`;
    const marker = `race${tag()}`;
    const batch = await submit(t, racingBatch(who, 200, marker));
    // Some items are folded, the rest still to come: the erasure lands in the middle.
    await waitFor('the batch under way', async () => (await messagesOf(batch.source_id)) > 0, 120_000, 20);
    const erased = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key });
    expect(erased.status).toBe(202);
    const outcome = await waitForBatch(batch.source_id);
    expect(outcome.failed).toBe(0);
    expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    expect(await rowsHolding([who, marker])).toEqual([]);
    // Every other user was analysed: 180 of them, each once.
    expect(await messagesOf(batch.source_id)).toBe(180);
  });

  it('nor from a chunk retried after the worker was killed (kill -9) and the erasure ran meanwhile', async () => {
    const t = await newTenant('race-kill');
    const who = `racekill-${tag()}`;
    const marker = `racekill${tag()}`;
    const batch = await submit(t, racingBatch(who, 200, marker));
    const itemsOfWho = Array.from({ length: 20 }, (_, k) => k * 10);
    await waitFor('the batch under way', async () => (await messagesOf(batch.source_id)) > 0, 120_000, 20);
    expect(await workerSessions()).toBeGreaterThan(0);
    await control('worker/kill');
    let inFlight: Chunk[] = [];
    try {
      // What the dead worker left: every commit it sent is in once PostgreSQL has ended its sessions.
      await workerSessionsEnded();
      const folded = await withDb(async (db) =>
        (await db.query('SELECT item_idx FROM messages WHERE source_id = $1', [batch.source_id])).rows.map(
          (r) => r.item_idx as number,
        ),
      );
      const unfolded = itemsOfWho.filter((i) => !folded.includes(i));
      // The race this test is about: a chunk holding items of the user not folded yet was running
      // when the worker died (Temporal still has its attempt as started), so it must run again.
      inFlight = (await batchChunks(batch.source_id)).filter((c) => c.state === 'started' && holds(c, unfolded));
      expect(inFlight.length).toBeGreaterThan(0);
      const erased = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key });
      expect(erased.status).toBe(202);
      expect(erased.body.counts.batch_items).toBe(20);
      // The erasure took what was folded of the user at the kill, and no more was folded.
      expect(erased.body.counts.messages).toBe(itemsOfWho.length - unfolded.length);
    } finally {
      await control('worker/start');
    }
    const outcome = await waitForBatch(batch.source_id, 240_000);
    expect(outcome.failed).toBe(0);
    // Those chunks ran again after the restart: each completed on a later attempt than the one killed.
    const after = await batchChunks(batch.source_id);
    for (const c of inFlight) {
      const ran = after.find((a) => a.activityId === c.activityId);
      expect(ran?.state).toBe('completed');
      expect(ran!.attempt).toBeGreaterThan(c.attempt);
    }
    const read = await call('GET', `/api/v1/batches/${batch.source_id}?project_id=${t.projectId}`, { key: t.key });
    expect(read.body).toMatchObject({ status: 'completed', accepted: 200, suppressed: 0, erased: 20 });
    expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    expect(await rowsHolding([who, marker])).toEqual([]);
    expect(await messagesOf(batch.source_id)).toBe(180);
  });
});
