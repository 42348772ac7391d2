import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { call, newTenant, stack, waitFor, waitForBatch, withDb } from '../support/api.js';

const PROFILE_KEYS = ['aggregates', 'attributes', 'created_at', 'source_label', 'updated_at', 'user_id'];
const NEGATIVE = 'This is terrible. The app keeps crashing, support ignores me and I want to cancel my subscription.';
const POSITIVE = 'Wonderful update! Everything is fast now and the team was so helpful, I recommend you to everyone.';

async function submit(key: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await call('POST', '/api/v1/users', { key, body, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { accepted: number; source_id: number; message: string };
}

describe('identify users -> batch workflow -> profiles (JSON gateway)', () => {
  it('accepts a batch, processes it in the background, and serves profile and timeline', async () => {
    const u2text = 'This is way too expensive, I will cancel my subscription next month.';
    const t = await newTenant();
    const res = await submit(t.key, {
      project_id: t.projectId,
      users: [
        {
          user_id: 'u1',
          text: 'I love the new dashboard, it is fast and clear.',
          attributes: { plan: 'pro', country: 'DE' },
        },
        { user_id: 'u2', text: u2text },
        { user_id: 'u3', text: 'The app keeps crashing when I upload files. Please help.' },
      ],
    });
    expect(res).toEqual({ accepted: 3, source_id: expect.any(Number), message: expect.stringMatching(/background/) });
    expect(await waitForBatch(res.source_id)).toEqual({ processed: 3, failed: 0 });

    const p = await call('GET', `/api/v1/profiles/u1?project_id=${t.projectId}`, { key: t.key });
    expect(p.status).toBe(200);
    // Extension `segments`: on the single read only (no segment is deployed here); the list keeps its fields.
    expect(Object.keys(p.body).sort()).toEqual([...PROFILE_KEYS, 'segments'].sort());
    expect(p.body.segments).toEqual([]);
    const listed = await call('GET', `/api/v1/profiles?project_id=${t.projectId}`, { key: t.key });
    expect(listed.body.users.map((u: object) => Object.keys(u).sort())).toEqual(Array(3).fill(PROFILE_KEYS));
    expect(p.body).toMatchObject({ user_id: 'u1', source_label: 'api', attributes: { plan: 'pro', country: 'DE' } });
    expect(p.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const a = p.body.aggregates;
    expect(a.window_size).toBe(1);
    expect(a.sentiment_trend).toBe('stable');
    expect(a.avg_sentiment).toBeGreaterThan(0);
    expect(a.message_frequency_days).toBeNull();

    const u2 = await call('GET', `/api/v1/profiles/u2?project_id=${t.projectId}`, { key: t.key });
    expect(u2.body.aggregates.avg_sentiment).toBeLessThan(0);
    expect(u2.body.aggregates.intentions_summary).toEqual(expect.arrayContaining(['churn']));
    expect(u2.body.aggregates.churn_risk_score).toBeGreaterThan(a.churn_risk_score);
    // Extension: the words that drove the churn reading, each from u2's own message; none for u1.
    const churnWords: string[] = u2.body.aggregates.churn_risk_factors.churn_words;
    expect(churnWords.length).toBeGreaterThan(0);
    expect(churnWords.length).toBeLessThanOrEqual(5);
    for (const w of churnWords)
      for (const part of w.replace(/\bnot /g, '').split(' ')) expect(u2text.toLowerCase()).toContain(part);
    expect(a.churn_risk_factors.churn_words).toEqual([]);

    const tl = await call('GET', `/api/v1/profiles/u1/timeline?project_id=${t.projectId}`, { key: t.key });
    expect(tl.status).toBe(200);
    expect(tl.body.user_id).toBe('u1');
    expect(tl.body.timeline).toHaveLength(1);
    expect(Object.keys(tl.body.timeline[0]).sort()).toEqual([
      'intentions',
      'labels',
      'sentiment',
      'source_label',
      'text',
      'timestamp',
      'topics',
    ]);
  });

  it('lists the segments a user is in, with their scores, by pipeline then segment id, and drops one the user leaves', async () => {
    const t = await newTenant();
    const other = await newTenant('other');
    const second = await call('POST', `/projects/${t.projectId}/pipelines`, { key: t.key, body: { name: 'second' } });
    expect(second.status).toBe(201);
    const unhappy = { field: 'avg_sentiment', op: '<', value: 0 };
    // Created out of id order, so the answer's order is not the creation order.
    const segments: [number, string, string, unknown][] = [
      [t.pipelineId, 'unhappy', 'Unhappy users', unhappy],
      [t.pipelineId, 'everyone', 'Everyone', { field: 'window_size', op: '>=', value: 1 }],
      [second.body.id, 'also-unhappy', 'Unhappy too', unhappy],
    ];
    for (const [pipeline, id, name, rule] of segments) {
      const base = `/projects/${t.projectId}/pipelines/${pipeline}/segments`;
      expect((await call('POST', base, { key: t.key, body: { id, name, rule } })).status).toBe(201);
      expect((await call('POST', `${base}/${id}/deploy`, { key: t.key })).status).toBe(200);
    }
    // What the segment's own member list says of the user, to compare the profile with.
    const member = async (pipeline: number, id: string, name: string) => {
      const res = await call('GET', `/projects/${t.projectId}/pipelines/${pipeline}/segments/${id}/users`, {
        key: t.key,
      });
      const m = res.body.users.find((u: { user_id: string }) => u.user_id === 'grumpy');
      return { pipeline_id: pipeline, segment_id: id, name, score: m.score, since: m.since };
    };
    const profile = async () =>
      (await call('GET', `/api/v1/profiles/grumpy?project_id=${t.projectId}`, { key: t.key })).body;

    const first = await submit(t.key, { project_id: t.projectId, users: [{ user_id: 'grumpy', text: NEGATIVE }] });
    await waitForBatch(first.source_id);
    const entered = await profile();
    expect(entered.segments).toEqual([
      await member(t.pipelineId, 'everyone', 'Everyone'),
      await member(t.pipelineId, 'unhappy', 'Unhappy users'),
      await member(second.body.id, 'also-unhappy', 'Unhappy too'),
    ]);
    for (const m of entered.segments) {
      expect(m.score).toBeGreaterThan(0);
      expect(Date.parse(m.since)).toBeGreaterThanOrEqual(Date.parse(entered.created_at));
    }

    // Two positive messages pull the average above zero: the user leaves both unhappy segments.
    for (let i = 0; i < 2; i++) {
      const b = await submit(t.key, { project_id: t.projectId, users: [{ user_id: 'grumpy', text: POSITIVE }] });
      await waitForBatch(b.source_id);
    }
    const left = await profile();
    expect(left.aggregates.avg_sentiment).toBeGreaterThan(0);
    expect(left.segments).toEqual([await member(t.pipelineId, 'everyone', 'Everyone')]);
    expect(left.segments[0].since).toBe(entered.segments[0].since); // still a member since the first message

    // Another tenant's key: 404, as for a missing project.
    const foreign = await call('GET', `/api/v1/profiles/grumpy?project_id=${t.projectId}`, { key: other.key });
    expect(foreign.status).toBe(404);
  });

  it('updates a repeated user: merges attributes, moves source_label, adds to the history, refolds the aggregates', async () => {
    const t = await newTenant();
    const first = await submit(t.key, {
      project_id: t.projectId,
      users: [
        {
          user_id: 'alice',
          text: 'Great product, support answered in minutes!',
          attributes: { plan: 'free', country: 'FR' },
          timestamp: '2026-01-01T10:00:00Z',
        },
      ],
    });
    await waitForBatch(first.source_id);
    const before = (await call('GET', `/api/v1/profiles/alice?project_id=${t.projectId}`, { key: t.key })).body;
    const second = await submit(t.key, {
      project_id: t.projectId,
      source_label: 'support-chat',
      users: [
        {
          user_id: 'alice',
          text: 'The invoices are wrong again and nobody replies. I want a refund.',
          attributes: { plan: 'pro' },
          timestamp: '2026-01-03T10:00:00Z',
        },
      ],
    });
    await waitForBatch(second.source_id);
    const after = (await call('GET', `/api/v1/profiles/alice?project_id=${t.projectId}`, { key: t.key })).body;
    expect(after.attributes).toEqual({ plan: 'pro', country: 'FR' });
    expect(after.source_label).toBe('support-chat');
    expect(after.created_at).toBe(before.created_at);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));

    const tl = (await call('GET', `/api/v1/profiles/alice/timeline?project_id=${t.projectId}`, { key: t.key })).body
      .timeline;
    expect(tl.map((e: any) => e.timestamp)).toEqual(['2026-01-03T10:00:00.000Z', '2026-01-01T10:00:00.000Z']);
    expect(tl.map((e: any) => e.source_label)).toEqual(['support-chat', 'api']);

    // The stored aggregates against values worked out here from the two stored analyses, by the
    // documented formulas (docs/aggregates-and-rules.md), not by the code under test.
    const [s1, s2] = [tl[1].sentiment, tl[0].sentiment];
    const a = after.aggregates;
    expect(a.message_count).toBe(2);
    expect(a.window_size).toBe(2);
    expect(a.message_frequency_days).toBeCloseTo(2, 5);
    expect(a.sentiment_trend).toBe('stable'); // two messages are always stable
    const avg = (s1 + s2) / 2;
    expect(a.avg_sentiment).toBeCloseTo(avg, 3);
    const negativeRatio = [s1, s2].filter((x) => x <= -0.2).length / 2;
    expect(a.negative_ratio).toBe(negativeRatio);
    const intentions = [tl[1].intentions, tl[0].intentions] as string[][];
    expect(a.price_sensitive_ratio).toBe(intentions.filter((i) => i.includes('price_sensitive')).length / 2);
    const weight = (i: string[]) => Math.max(0, ...i.map((x) => ({ churn: 1, refund: 0.6, downgrade: 0.6 })[x] ?? 0));
    const churnIntent =
      0.5 * Math.max(...intentions.map(weight)) + 0.5 * ((weight(intentions[0]) + weight(intentions[1])) / 2);
    const negativeSentiment = (negativeRatio + Math.max(0, -avg)) / 2;
    expect(a.churn_risk_factors.negative_sentiment).toBeCloseTo(negativeSentiment, 3);
    expect(a.churn_risk_factors.declining_trend).toBe(0);
    expect(a.churn_risk_factors.churn_intent).toBeCloseTo(churnIntent, 3);
    expect(a.churn_risk_score).toBeCloseTo(0.4 * negativeSentiment + 0.4 * churnIntent, 3);
    // The second message asks for a refund: its analysis says so, and the intent factor rises.
    expect(tl[0].intentions).toContain('refund');
    expect(a.churn_risk_factors.churn_intent).toBeGreaterThanOrEqual(0.45);
    expect(after.aggregates.avg_sentiment).toBeLessThan(before.aggregates.avg_sentiment);
  });

  it('filters and paginates profiles exactly, with total counting all matches', async () => {
    const t = await newTenant();
    const texts = [
      'Cancel my account, this is too expensive and support never answers.',
      'Love it, the reports are great and the team is helpful.',
      'The mobile app crashes every day, I am thinking of switching to a competitor.',
      'Setup was easy and the Slack integration works well.',
      'Why did you charge me twice? I want my money back.',
      'Fine product, nothing to add.',
    ];
    const users = Array.from({ length: 12 }, (_, i) => ({
      user_id: `user-${String(i).padStart(2, '0')}`,
      text: texts[i % texts.length],
    }));
    const b1 = await submit(t.key, { project_id: t.projectId, users });
    await waitForBatch(b1.source_id);
    // Users 0..3 get a second message, so min_messages separates them.
    const b2 = await submit(t.key, {
      project_id: t.projectId,
      users: users.slice(0, 4).map((u, i) => ({ ...u, text: texts[(i + 3) % texts.length] })),
    });
    await waitForBatch(b2.source_id);

    const all = await call('GET', `/api/v1/profiles?project_id=${t.projectId}&limit=100`, { key: t.key });
    expect(all.body.total).toBe(12);
    const everyone: any[] = all.body.users;
    // Stable order: most recently updated first, then user_id.
    const sorted = [...everyone].sort(
      (x, y) => Date.parse(y.updated_at) - Date.parse(x.updated_at) || (x.user_id < y.user_id ? -1 : 1),
    );
    expect(everyone.map((u) => u.user_id)).toEqual(sorted.map((u) => u.user_id));

    const defaults = await call('GET', `/api/v1/profiles?project_id=${t.projectId}`, { key: t.key });
    expect(defaults.body.users).toHaveLength(12); // default limit 20

    const pages: string[] = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await call('GET', `/api/v1/profiles?project_id=${t.projectId}&limit=5&offset=${offset}`, {
        key: t.key,
      });
      expect(page.body.total).toBe(12);
      pages.push(...page.body.users.map((u: any) => u.user_id));
    }
    expect(pages).toEqual(everyone.map((u) => u.user_id));

    const churns = everyone.map((u) => u.aggregates.churn_risk_score).sort((a, b) => a - b);
    const mid = churns[6];
    const cases: [string, (u: any) => boolean][] = [
      [`churn_risk_gte=${mid}`, (u) => u.aggregates.churn_risk_score >= mid],
      [`churn_risk_lte=${mid}`, (u) => u.aggregates.churn_risk_score <= mid],
      ['min_messages=2', (u) => u.aggregates.message_count >= 2],
      ['sentiment_trend=stable', (u) => u.aggregates.sentiment_trend === 'stable'],
      ['sentiment_trend=declining', (u) => u.aggregates.sentiment_trend === 'declining'],
      [
        `min_messages=2&churn_risk_gte=0&churn_risk_lte=${mid}&sentiment_trend=stable`,
        (u) =>
          u.aggregates.message_count >= 2 &&
          u.aggregates.churn_risk_score <= mid &&
          u.aggregates.sentiment_trend === 'stable',
      ],
    ];
    for (const [query, keep] of cases) {
      const res = await call('GET', `/api/v1/profiles?project_id=${t.projectId}&limit=100&${query}`, { key: t.key });
      expect(res.status).toBe(200);
      const expected = everyone.filter(keep).map((u) => u.user_id);
      expect(
        res.body.users.map((u: any) => u.user_id),
        query,
      ).toEqual(expected);
      expect(res.body.total, query).toBe(expected.length);
    }
    expect(everyone.filter((u) => u.aggregates.message_count >= 2)).toHaveLength(4);
    const limited = await call('GET', `/api/v1/profiles?project_id=${t.projectId}&limit=3&min_messages=1`, {
      key: t.key,
    });
    expect(limited.body.users).toHaveLength(3);
    expect(limited.body.total).toBe(12);

    // Keyset paging (extension): `next_after` of a full page, passed as `after`, gives the same
    // order as offsets, also across profiles updated at the very same microsecond (set with SQL).
    await withDb((db) =>
      db.query(
        `UPDATE users SET updated_at = (SELECT max(updated_at) FROM users WHERE project_id = $1)
          WHERE project_id = $1 AND user_id IN ('user-03', 'user-07', 'user-10', 'user-11')`,
        [t.projectId],
      ),
    );
    const list = (q: string) => call('GET', `/api/v1/profiles?project_id=${t.projectId}${q}`, { key: t.key });
    const byCursor = async (filter: string, limit: number) => {
      const ids: string[] = [];
      let after: string | undefined;
      for (let n = 0; n < 20; n++) {
        const page = await list(`${filter}&limit=${limit}${after ? `&after=${after}` : ''}`);
        expect(page.status).toBe(200);
        ids.push(...page.body.users.map((u: any) => u.user_id));
        after = page.body.next_after;
        if (page.body.users.length < limit) expect(after).toBeUndefined();
        if (!after) break;
      }
      return ids;
    };
    const ordered = (await list('&limit=100')).body.users.map((u: any) => u.user_id);
    expect(await byCursor('', 5)).toEqual(ordered);
    expect(await byCursor('', 2)).toEqual(ordered);
    const stable = (await list('&limit=100&sentiment_trend=stable')).body.users.map((u: any) => u.user_id);
    expect(await byCursor('&sentiment_trend=stable', 1)).toEqual(stable);
    const first = await list('&limit=5');
    const bad = await list('&after=not-a-cursor');
    expect([bad.status, bad.body.error.field]).toEqual([400, 'after']);
    const both = await list(`&after=${first.body.next_after}&offset=5`);
    expect([both.status, both.body.error.field]).toEqual([400, 'offset']);
  });

  it('sorts profiles by churn risk (extension): highest first, ties by user_id, paged by offset, filters and total unchanged', async () => {
    const t = await newTenant();
    const texts = [
      'Cancel my account, this is too expensive and support never answers.',
      'Love it, the reports are great and the team is helpful.',
      'The mobile app crashes every day, I am thinking of switching to a competitor.',
      'Fine product, nothing to add.',
    ];
    // Scores set with SQL (column and answer alike) so the order is known. b and c tie: c was
    // updated last (a second message), so only the user_id tie-break puts b first.
    const scores: Record<string, number> = { a: 0.9, b: 0.55, c: 0.55, d: 0.2, e: 0.75, f: 0.1, g: 0.4 };
    const ids = Object.keys(scores);
    const b1 = await submit(t.key, {
      project_id: t.projectId,
      users: ids.map((id, i) => ({ user_id: id, text: texts[i % texts.length] })),
    });
    await waitForBatch(b1.source_id);
    const b2 = await submit(t.key, { project_id: t.projectId, users: [{ user_id: 'c', text: texts[1] }] });
    await waitForBatch(b2.source_id);
    await withDb((db) =>
      db.query(
        `UPDATE users u SET churn_risk_score = s.score,
                aggregates = jsonb_set(u.aggregates, '{churn_risk_score}', to_jsonb(s.score))
           FROM (SELECT key AS user_id, value::float8 AS score FROM jsonb_each_text($2::jsonb)) s
          WHERE u.project_id = $1 AND u.user_id = s.user_id`,
        [t.projectId, JSON.stringify(scores)],
      ),
    );
    const list = (q: string) => call('GET', `/api/v1/profiles?project_id=${t.projectId}${q}`, { key: t.key });
    const byChurn = ['a', 'e', 'b', 'c', 'g', 'd', 'f'];

    const full = await list('&sort=churn_risk&limit=7');
    expect(full.status).toBe(200);
    expect(full.body.users.map((u: any) => u.user_id)).toEqual(byChurn);
    expect(full.body.users.map((u: any) => u.aggregates.churn_risk_score)).toEqual(byChurn.map((id) => scores[id]));
    expect(full.body.total).toBe(7);
    // A full page, but the cursor pages the updated_at order only.
    expect(full.body.next_after).toBeUndefined();

    const pages: string[] = [];
    for (let offset = 0; offset < 7; offset += 3) {
      const page = await list(`&sort=churn_risk&limit=3&offset=${offset}`);
      expect(page.body.total).toBe(7);
      expect(page.body.next_after).toBeUndefined();
      pages.push(...page.body.users.map((u: any) => u.user_id));
    }
    expect(pages).toEqual(byChurn);

    const everyone: any[] = (await list('&limit=100')).body.users;
    expect(everyone[0].user_id).toBe('c'); // the default order has c before b
    const cases: [string, (u: any) => boolean][] = [
      ['churn_risk_gte=0.5', (u) => u.aggregates.churn_risk_score >= 0.5],
      [
        'churn_risk_gte=0.3&churn_risk_lte=0.6',
        (u) => u.aggregates.churn_risk_score >= 0.3 && u.aggregates.churn_risk_score <= 0.6,
      ],
      ['min_messages=2', (u) => u.aggregates.message_count >= 2],
      ['sentiment_trend=stable', (u) => u.aggregates.sentiment_trend === 'stable'],
    ];
    for (const [query, keep] of cases) {
      const sorted = await list(`&limit=100&sort=churn_risk&${query}`);
      const expected = byChurn.filter((id) => keep(everyone.find((u) => u.user_id === id)));
      expect(
        sorted.body.users.map((u: any) => u.user_id),
        query,
      ).toEqual(expected);
      expect(sorted.body.total, query).toBe(expected.length);
      expect((await list(`&limit=100&${query}`)).body.total, query).toBe(expected.length);
    }

    // The default order is unchanged, and `sort=updated_at` names it.
    const byUpdate = await list('&limit=5&sort=updated_at');
    expect(byUpdate.body).toEqual((await list('&limit=5')).body);
    expect(byUpdate.body.next_after).toEqual(expect.any(String));
    const bad = await list('&sort=churn');
    expect([bad.status, bad.body.error.field]).toEqual([400, 'sort']);
    const withCursor = await list(`&sort=churn_risk&after=${byUpdate.body.next_after}`);
    expect([withCursor.status, withCursor.body.error.field]).toEqual([400, 'after']);
  });

  it('keeps both messages when two batches touch the same user at once, and pages the timeline', async () => {
    const t = await newTenant();
    const texts = [
      'First note about billing.',
      'Second note about the mobile app.',
      'Third note about support.',
      'Fourth note about pricing.',
    ];
    const batches = await Promise.all(
      texts.map((text) => submit(t.key, { project_id: t.projectId, users: [{ user_id: 'shared', text }] })),
    );
    for (const b of batches) await waitForBatch(b.source_id);
    const profile = (await call('GET', `/api/v1/profiles/shared?project_id=${t.projectId}`, { key: t.key })).body;
    expect(profile.aggregates.message_count).toBe(4);
    expect(profile.aggregates.window_size).toBe(4);
    const page1 = (
      await call('GET', `/api/v1/profiles/shared/timeline?project_id=${t.projectId}&limit=3`, { key: t.key })
    ).body.timeline;
    const page2 = (
      await call('GET', `/api/v1/profiles/shared/timeline?project_id=${t.projectId}&limit=3&offset=3`, { key: t.key })
    ).body.timeline;
    expect(page1).toHaveLength(3);
    expect(page2).toHaveLength(1);
    const stamps = [...page1, ...page2].map((e: any) => Date.parse(e.timestamp));
    expect(stamps).toEqual([...stamps].sort((a, b) => b - a));
    expect(
      (await call('GET', `/api/v1/profiles/shared/timeline?project_id=${t.projectId}&limit=1001`, { key: t.key }))
        .status,
    ).toBe(400);
  });

  it('refuses bad list parameters with 400 naming the parameter', async () => {
    const t = await newTenant();
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['sentiment_trend=up', 'sentiment_trend'],
      ['churn_risk_gte=1.5', 'churn_risk_gte'],
      ['churn_risk_lte=-0.1', 'churn_risk_lte'],
      ['min_messages=-2', 'min_messages'],
      ['sort=newest', 'sort'],
    ];
    for (const [query, field] of bad) {
      const res = await call('GET', `/api/v1/profiles?project_id=${t.projectId}&${query}`, { key: t.key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.field, query).toBe(field);
    }
    expect((await call('GET', '/api/v1/profiles', { key: t.key })).body.error.field).toBe('project_id');
    expect((await call('GET', `/api/v1/profiles/nobody?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    expect(
      (await call('GET', `/api/v1/profiles/nobody/timeline?project_id=${t.projectId}`, { key: t.key })).status,
    ).toBe(404);
  });
});

describe('identify users: validation changes nothing', () => {
  const cases: [string, (p: number) => unknown, string][] = [
    ['missing users', (p) => ({ project_id: p }), 'users'],
    ['empty users', (p) => ({ project_id: p, users: [] }), 'users'],
    [
      '1001 users',
      (p) => ({ project_id: p, users: Array.from({ length: 1001 }, (_, i) => ({ user_id: `u${i}`, text: 'hi' })) }),
      'users',
    ],
    ['missing user_id', (p) => ({ project_id: p, users: [{ text: 'hi' }] }), 'users[0].user_id'],
    ['empty user_id', (p) => ({ project_id: p, users: [{ user_id: '', text: 'hi' }] }), 'users[0].user_id'],
    ['long user_id', (p) => ({ project_id: p, users: [{ user_id: 'x'.repeat(257), text: 'hi' }] }), 'users[0].user_id'],
    ['missing text', (p) => ({ project_id: p, users: [{ user_id: 'a' }] }), 'users[0].text'],
    ['empty text', (p) => ({ project_id: p, users: [{ user_id: 'a', text: '   ' }] }), 'users[0].text'],
    ['long text', (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'x'.repeat(10_001) }] }), 'users[0].text'],
    [
      'attributes array',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', attributes: [1] }] }),
      'users[0].attributes',
    ],
    [
      'nested attribute',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', attributes: { x: { y: 1 } } }] }),
      'users[0].attributes.x',
    ],
    [
      '51 attributes',
      (p) => ({
        project_id: p,
        users: [
          {
            user_id: 'a',
            text: 'hi',
            attributes: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
          },
        ],
      }),
      'users[0].attributes',
    ],
    [
      'bad timestamp',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: 'yesterday' }] }),
      'users[0].timestamp',
    ],
    [
      'timestamp in the year 9999',
      (p) => ({
        project_id: p,
        users: [
          { user_id: 'a', text: 'hi' },
          { user_id: 'a', text: 'hi', timestamp: '9999-01-01T00:00:00Z' },
        ],
      }),
      'users[1].timestamp',
    ],
    [
      'timestamp 10 minutes ahead',
      (p) => ({
        project_id: p,
        users: [{ user_id: 'a', text: 'hi', timestamp: new Date(Date.now() + 600_000).toISOString() }],
      }),
      'users[0].timestamp',
    ],
    [
      'timestamp before 2000',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: '1999-12-31T23:59:59Z' }] }),
      'users[0].timestamp',
    ],
    [
      'February 31st',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: '2026-02-31' }] }),
      'users[0].timestamp',
    ],
    [
      'February 30th 10:00',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: '2026-02-30T10:00:00Z' }] }),
      'users[0].timestamp',
    ],
    [
      '24:00',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: '2026-12-01T24:00:00Z' }] }),
      'users[0].timestamp',
    ],
    [
      'date-time without offset',
      (p) => ({ project_id: p, users: [{ user_id: 'a', text: 'hi', timestamp: '2026-01-01T10:00:00' }] }),
      'users[0].timestamp',
    ],
    [
      'second user bad',
      (p) => ({
        project_id: p,
        users: [
          { user_id: 'a', text: 'hi' },
          { user_id: 'b', text: 5 },
        ],
      }),
      'users[1].text',
    ],
    ['project_id string', () => ({ project_id: 'one', users: [{ user_id: 'a', text: 'hi' }] }), 'project_id'],
    [
      'empty source_label',
      (p) => ({ project_id: p, source_label: '', users: [{ user_id: 'a', text: 'hi' }] }),
      'source_label',
    ],
  ];

  it.each(cases)('%s -> 400 naming %s', async (_name, body, field) => {
    const t = await newTenant();
    const res = await call('POST', '/api/v1/users', { key: t.key, body: body(t.projectId) });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe(field);
    const count = await withDb(
      async (db) =>
        (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [t.projectId])).rows[0].n,
    );
    expect(count).toBe(0);
  });

  it('answers 404 for a foreign or missing project, 413 over 5 MB, 400 for malformed JSON', async () => {
    const a = await newTenant('a');
    const b = await newTenant('b');
    const users = [{ user_id: 'x', text: 'hello' }];
    const foreign = await call('POST', '/api/v1/users', { key: a.key, body: { project_id: b.projectId, users } });
    const missing = await call('POST', '/api/v1/users', { key: a.key, body: { project_id: 987654321, users } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const huge = await call('POST', '/api/v1/users', {
      key: a.key,
      raw: JSON.stringify({ project_id: a.projectId, users, pad: 'x'.repeat(5 * 1024 * 1024) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(huge.status).toBe(413);
    const malformed = await call('POST', '/api/v1/users', {
      key: a.key,
      raw: '{"project_id":',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const noKey = await call('POST', '/api/v1/users', { body: { project_id: a.projectId, users } });
    expect(noKey.status).toBe(401);
  });

  it('refuses ten concurrent 5 MB batches of 160,000 tiny users while reading them, storing nothing; a concurrent GET keeps being answered (its latency printed)', async () => {
    const t = await newTenant('oversized');
    const raw = JSON.stringify({
      project_id: t.projectId,
      users: Array.from({ length: 160_000 }, (_, i) => ({ user_id: `u${i}`, text: 't' })),
    });
    expect(raw.length).toBeGreaterThan(5_000_000);
    // The GETs come from a process of their own: the latencies are the api's, not this process's.
    const probe = spawn(process.execPath, [
      path.join(import.meta.dirname, '../support/latency-probe.mjs'),
      `${stack().gatewayUrl}/healthz`,
    ]);
    let out = '';
    probe.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => probe.on('exit', resolve));
    await waitFor('the probe', async () => out.startsWith('ready'), 10_000, 20);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        call('POST', '/api/v1/users', { key: t.key, raw, headers: { 'Content-Type': 'application/json' } }),
      ),
    );
    probe.stdin.end();
    await exited;
    const gets: number[] = JSON.parse(out.split('\n')[1]);
    // Before the limit was checked on the bytes, each body was parsed (150-250 ms of blocked event
    // loop) and a GET waited up to 1.47 s. The latency is printed, not asserted (timings belong in
    // the bench; a loaded CI machine once answered in 250.7 ms): what is asserted is that the api
    // kept answering, and json-budget.test.ts asserts the reading stops after the 1,001st user.
    const worst = Math.max(...gets);
    console.log(
      `GET /healthz during ten 5 MB oversized batches: ${gets.length} answered, slowest ${worst.toFixed(0)} ms`,
    );
    expect(gets.length).toBeGreaterThan(0);
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(a.body.error).toMatchObject({ field: 'users', message: 'at most 1000 users per batch (got more)' });
    }
    const stored = await withDb(
      async (db) =>
        (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [t.projectId])).rows[0].n,
    );
    expect(stored).toBe(0);
  });

  it('refuses an attribute named __proto__ with a 400 naming it, over the gateway, instead of dropping it', async () => {
    const t = await newTenant('proto-attribute');
    const res = await call('POST', '/api/v1/users', {
      key: t.key,
      raw: `{"project_id": ${t.projectId}, "users": [{"user_id": "p", "text": "hi", "attributes": {"plan": "pro", "__proto__": "x"}}]}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('users[0].attributes.__proto__');
  });

  it('replays the first answer for a repeated Idempotency-Key and processes the batch once', async () => {
    const t = await newTenant();
    const body = { project_id: t.projectId, users: [{ user_id: 'idem', text: 'Please add dark mode.' }] };
    const first = await submit(t.key, body, { 'Idempotency-Key': 'abc-123' });
    const again = await submit(t.key, body, { 'Idempotency-Key': 'abc-123' });
    expect(again).toEqual(first);
    await waitForBatch(first.source_id);
    const tl = await call('GET', `/api/v1/profiles/idem/timeline?project_id=${t.projectId}`, { key: t.key });
    expect(tl.body.timeline).toHaveLength(1);
    const other = await submit(t.key, body, { 'Idempotency-Key': 'another' });
    expect(other.source_id).not.toBe(first.source_id);
  });

  it('refuses an Idempotency-Key reused with a different body (422) and stores nothing for it', async () => {
    const t = await newTenant();
    const body = { project_id: t.projectId, users: [{ user_id: 'first-body', text: 'Please add dark mode.' }] };
    const first = await submit(t.key, body, { 'Idempotency-Key': 'reused-key' });
    // The same request with its keys in another order is the same request: replayed.
    const reordered = { users: [{ text: 'Please add dark mode.', user_id: 'first-body' }], project_id: t.projectId };
    expect(await submit(t.key, reordered, { 'Idempotency-Key': 'reused-key' })).toEqual(first);
    const sourcesBefore = await withDb(
      async (db) =>
        (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [t.projectId])).rows[0].n,
    );
    const second = await call('POST', '/api/v1/users', {
      key: t.key,
      body: { project_id: t.projectId, users: [{ user_id: 'second-body', text: 'Different batch entirely.' }] },
      headers: { 'Idempotency-Key': 'reused-key' },
    });
    expect(second.status).toBe(422);
    expect(second.body.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    const sourcesAfter = await withDb(
      async (db) =>
        (await db.query('SELECT count(*)::int AS n FROM sources WHERE project_id = $1', [t.projectId])).rows[0].n,
    );
    expect(sourcesAfter).toBe(sourcesBefore);
    await waitForBatch(first.source_id);
    expect((await call('GET', `/api/v1/profiles/second-body?project_id=${t.projectId}`, { key: t.key })).status).toBe(
      404,
    );
  });
});
