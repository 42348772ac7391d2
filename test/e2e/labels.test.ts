import { describe, expect, it } from 'vitest';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { call, newTenant, waitFor, waitForBatch, type Tenant } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';
import { startReceiver } from '../support/receiver.js';

/**
 * Custom labels through both transports on the real stack (issue 47; docs/labels.md): taught from
 * 10 + 10 examples by a training workflow on the worker's local model, measured, tried, corrected,
 * raced, refused when the input is bad, and invisible to other tenants.
 */
const MATCHING = [
  'My parcel still has not arrived after two weeks.',
  'The courier marked the order delivered but nothing came.',
  'Delivery was supposed to be Monday, it is Friday and no package.',
  'The tracking has not moved in nine days.',
  'Driver left my box in the rain and it was soaked.',
  'My order went to the wrong address again.',
  'Third time the delivery slot was missed, nobody showed up.',
  'Package arrived crushed and the contents broken.',
  'Where is my order? It says out for delivery since Tuesday.',
  'The delivery van never came and I waited home all day.',
];
const OTHER = [
  'Love the new colours in the spring collection.',
  'Can I change the email on my account?',
  'Your prices went up again, that is too much.',
  'The app keeps logging me out when I switch tabs.',
  'Do you have this jacket in a size medium?',
  'Thanks, the support agent was very kind.',
  'How do I use my discount code at checkout?',
  'The fabric feels cheaper than last year.',
  'Please add Apple Pay as a payment option.',
  'I would like to update my newsletter preferences.',
];
const examples = (match: string[], other: string[]) => [
  ...match.map((text) => ({ text, match: true })),
  ...other.map((text) => ({ text, match: false })),
];
const labelsOf = (t: Tenant) => `/api/v1/projects/${t.projectId}/labels`;

async function ready(t: Tenant, name: string, version: number) {
  return waitFor(
    `label ${name} v${version} ready`,
    async () => {
      const r = await call('GET', `${labelsOf(t)}/${name}`, { key: t.key });
      return r.body.state === 'ready' && r.body.ready_version === version && r.body;
    },
    120_000,
  );
}

describe('custom labels', () => {
  it('are taught from 10 + 10 examples, measured, tried, corrected into version 2', { timeout: 300_000 }, async () => {
    const t = await newTenant('labels');
    const created = await call('POST', labelsOf(t), {
      key: t.key,
      body: {
        name: 'delivery_problem',
        description: 'The order did not arrive, or arrived late or damaged',
        examples: examples(MATCHING, OTHER),
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body).toMatchObject({
      name: 'delivery_problem',
      state: 'training',
      version: 1,
      ready_version: null,
    });
    expect(created.body.examples).toHaveLength(20);

    const v1 = await ready(t, 'delivery_problem', 1);
    // Cross-validated on its own 20 examples, 5 folds, with the warning for so few.
    expect(v1.quality).toMatchObject({ folds: 5, examples: 20, matching: 10 });
    expect(v1.quality.f1).toBeGreaterThan(0.6);
    expect(v1.quality.warning).toMatch(/rough until each side has 20/);

    const tried = await call('POST', `${labelsOf(t)}/delivery_problem/classify`, {
      key: t.key,
      body: { texts: ['My package never showed up and tracking is stuck.', 'How do I reset my password?'] },
    });
    expect(tried.status, JSON.stringify(tried.body)).toBe(200);
    expect(tried.body).toMatchObject({ label: 'delivery_problem', version: 1 });
    expect(tried.body.results.map((r: { match: boolean }) => r.match)).toEqual([true, false]);
    expect(tried.body.results[0].score).toBeGreaterThan(tried.body.results[1].score);

    // Correcting: two more examples make version 2, which supersedes version 1.
    const added = await call('POST', `${labelsOf(t)}/delivery_problem/examples`, {
      key: t.key,
      body: {
        examples: [
          { text: 'The delivery was quick, thank you!', match: false },
          { text: 'Still waiting on my parcel.', match: true },
        ],
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(202);
    expect(added.body).toMatchObject({ version: 2, state: 'training', examples_count: 22 });
    const v2 = await ready(t, 'delivery_problem', 2);
    expect(v2.quality.examples).toBe(22);

    const list = await call('GET', labelsOf(t), { key: t.key });
    expect(list.body.labels).toHaveLength(1);
    expect(list.body.labels[0].examples).toBeUndefined();
  });

  it(
    'are applied to new messages: the timeline, the profile and a segment on label_ratio that tells a receiver',
    { timeout: 300_000 },
    async () => {
      const t = await newTenant('labels-applied');
      expect(
        (
          await call('POST', labelsOf(t), {
            key: t.key,
            body: { name: 'delivery_problem', examples: examples(MATCHING, OTHER) },
          })
        ).status,
      ).toBe(202);
      await ready(t, 'delivery_problem', 1);
      const base = `/projects/${t.projectId}/pipelines/${t.pipelineId}`;
      // A rule may name only the project's labels, with the path of the one it does not have.
      const unknown = await call('POST', `${base}/segments`, {
        key: t.key,
        body: {
          name: 'Late',
          rule: {
            all: [
              { field: 'window_size', op: '>=', value: 1 },
              { field: 'label_ratio.late', op: '>=', value: 0.3 },
            ],
          },
        },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ field: 'rule.all[1].field' });
      expect(unknown.body.error.message).toMatch(/unknown label "late"; the project's labels are delivery_problem/);
      const receiver = await startReceiver();
      try {
        const hook = await call('POST', `${base}/webhooks`, {
          key: t.key,
          body: { url: receiver.url, secret: 'whsec-labels-0123456789', events: ['user_added'] },
        });
        expect(hook.status, JSON.stringify(hook.body)).toBe(201);
        const seg = await call('POST', `${base}/segments`, {
          key: t.key,
          body: {
            name: 'Delivery trouble',
            id: 'delivery-trouble',
            rule: { field: 'label_ratio.delivery_problem', op: '>=', value: 0.5 },
          },
        });
        expect(seg.status, JSON.stringify(seg.body)).toBe(201);
        expect((await call('POST', `${base}/segments/delivery-trouble/deploy`, { key: t.key })).status).toBe(200);

        const batch = await call('POST', '/api/v1/users', {
          key: t.key,
          body: {
            project_id: t.projectId,
            users: [
              { user_id: 'waiting', text: 'My order has not arrived and the tracking has been stuck for ten days.' },
              { user_id: 'happy', text: 'How do I change my newsletter preferences?' },
            ],
          },
        });
        expect(batch.status).toBe(202);
        await waitForBatch(batch.body.source_id);
        const timeline = await call('GET', `/api/v1/profiles/waiting/timeline?project_id=${t.projectId}`, {
          key: t.key,
        });
        expect(timeline.body.timeline[0].labels).toEqual(['delivery_problem']);
        const other = await call('GET', `/api/v1/profiles/happy/timeline?project_id=${t.projectId}`, { key: t.key });
        expect(other.body.timeline[0].labels).toEqual([]);
        const profile = await call('GET', `/api/v1/profiles/waiting?project_id=${t.projectId}`, { key: t.key });
        expect(profile.body.aggregates).toMatchObject({
          labels: ['delivery_problem'],
          label_ratios: { delivery_problem: 1 },
        });

        const added = await waitFor('user_added for the waiting user', async () =>
          receiver.received
            .map((r) => JSON.parse(r.body))
            .find((b) => b.event_type === 'user_added' && b.user?.id === 'waiting'),
        );
        expect(added.segment.id).toBe('delivery-trouble');
        expect(receiver.received.map((r) => JSON.parse(r.body).user?.id)).not.toContain('happy');

        // A label a deployed rule names cannot be deleted out from under it.
        const del = await call('DELETE', `${labelsOf(t)}/delivery_problem`, { key: t.key });
        expect(del.status).toBe(409);
        expect(del.body.error.message).toMatch(/segment delivery-trouble/);
        expect((await call('GET', `${labelsOf(t)}/delivery_problem`, { key: t.key })).status).toBe(200);
      } finally {
        await receiver.close();
      }
    },
  );

  it(
    "backfill a ready version over the project's stored messages, skipping erased texts",
    { timeout: 300_000 },
    async () => {
      const t = await newTenant('labels-backfill');
      const day = 86_400_000;
      const batch = await call('POST', '/api/v1/users', {
        key: t.key,
        body: {
          project_id: t.projectId,
          users: [
            { user_id: 'waiting', text: 'My parcel never came, the tracking is stuck for a week.' },
            { user_id: 'asking', text: 'Can I change the email address on my account?' },
            {
              user_id: 'long-ago',
              text: 'The courier lost my order and nobody answers.',
              timestamp: new Date(Date.now() - 40 * day).toISOString(),
            },
          ],
        },
      });
      expect(batch.status).toBe(202);
      await waitForBatch(batch.body.source_id);
      // The oldest text is erased by retention before the label exists: it cannot be scored.
      expect(
        (await call('PUT', `/api/v1/projects/${t.projectId}`, { key: t.key, body: { message_retention_days: 30 } }))
          .status,
      ).toBe(200);
      await waitFor('a retention sweep', async () => {
        const r = await call('GET', `/api/v1/erasures?project_id=${t.projectId}&kind=retention`, { key: t.key });
        return r.body.erasures.length > 0;
      });

      expect(
        (
          await call('POST', labelsOf(t), {
            key: t.key,
            body: { name: 'delivery_problem', examples: examples(MATCHING, OTHER) },
          })
        ).status,
      ).toBe(202);
      const done = await waitFor(
        'the backfill done',
        async () => {
          const r = await call('GET', `${labelsOf(t)}/delivery_problem`, { key: t.key });
          return r.body.backfill?.state === 'done' && r.body;
        },
        120_000,
      );
      expect(done.backfill).toMatchObject({ version: 1, users_done: 3, users_total: 3 });
      const labelsOn = async (user: string) =>
        (await call('GET', `/api/v1/profiles/${user}/timeline?project_id=${t.projectId}`, { key: t.key })).body
          .timeline[0].labels;
      expect(await labelsOn('waiting')).toEqual(['delivery_problem']);
      expect(await labelsOn('asking')).toEqual([]);
      expect(await labelsOn('long-ago')).toEqual([]);
      const profile = await call('GET', `/api/v1/profiles/waiting?project_id=${t.projectId}`, { key: t.key });
      expect(profile.body.aggregates.label_ratios).toEqual({ delivery_problem: 1 });
    },
  );

  it('end a race of two updates in the newest version', { timeout: 300_000 }, async () => {
    const t = await newTenant('labels-race');
    await call('POST', labelsOf(t), { key: t.key, body: { name: 'late', examples: examples(MATCHING, OTHER) } });
    const a = examples(MATCHING.slice(0, 6), OTHER.slice(0, 6));
    const b = examples(MATCHING.slice(4), OTHER.slice(4));
    const [ra, rb] = await Promise.all([
      call('PUT', `${labelsOf(t)}/late`, { key: t.key, body: { examples: a } }),
      call('PUT', `${labelsOf(t)}/late`, { key: t.key, body: { examples: b } }),
    ]);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect([ra.body.version, rb.body.version].sort()).toEqual([2, 3]);
    const newest = ra.body.version === 3 ? a : b;
    const done = await ready(t, 'late', 3);
    expect(done.examples).toEqual(newest);
    expect(done.quality.examples).toBe(newest.length);
  });

  it('refuse bad input with a clear 4xx and change nothing', { timeout: 120_000 }, async () => {
    const t = await newTenant('labels-bad');
    const few = await call('POST', labelsOf(t), {
      key: t.key,
      body: { name: 'x', examples: examples(MATCHING.slice(0, 4), OTHER) },
    });
    expect(few.status).toBe(400);
    expect(few.body.error).toMatchObject({ code: 'invalid_argument', field: 'examples' });
    expect(few.body.error.message).toMatch(/at least 5 matching and 5 non-matching/);
    const badName = await call('POST', labelsOf(t), {
      key: t.key,
      body: { name: 'Delivery Problem', examples: examples(MATCHING, OTHER) },
    });
    expect(badName.status).toBe(400);
    expect(badName.body.error.field).toBe('name');
    const twice = await call('POST', labelsOf(t), {
      key: t.key,
      body: { name: 'x', examples: [...examples(MATCHING, OTHER), { text: MATCHING[0], match: false }] },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error.field).toBe('examples[20].text');
    expect((await call('GET', labelsOf(t), { key: t.key })).body.labels).toEqual([]);

    expect(
      (await call('POST', labelsOf(t), { key: t.key, body: { name: 'x', examples: examples(MATCHING, OTHER) } }))
        .status,
    ).toBe(202);
    const dup = await call('POST', labelsOf(t), {
      key: t.key,
      body: { name: 'x', examples: examples(MATCHING, OTHER) },
    });
    expect(dup.status).toBe(409);
    const many = await call('POST', `${labelsOf(t)}/x/classify`, {
      key: t.key,
      body: { texts: new Array(101).fill('hello') },
    });
    expect(many.status).toBe(400);
    expect(many.body.error.field).toBe('texts');
    const again = await call('POST', `${labelsOf(t)}/x/examples`, {
      key: t.key,
      body: { examples: [{ text: OTHER[3], match: true }] },
    });
    expect(again.status).toBe(400);
    expect(again.body.error.field).toBe('examples[0].text');
    const after = await call('GET', `${labelsOf(t)}/x`, { key: t.key });
    expect(after.body).toMatchObject({ version: 1, examples_count: 20 });
  });

  it('are 404 to another tenant on every route and RPC', { timeout: 120_000 }, async () => {
    const owner = await newTenant('labels-owner');
    const other = await newTenant('labels-other');
    expect(
      (
        await call('POST', labelsOf(owner), {
          key: owner.key,
          body: { name: 'mine', examples: examples(MATCHING, OTHER) },
        })
      ).status,
    ).toBe(202);
    const base = labelsOf(owner);
    const body = { examples: examples(MATCHING, OTHER) };
    const routes: [string, string, unknown?][] = [
      ['GET', base],
      ['POST', base, { name: 'theirs', ...body }],
      ['GET', `${base}/mine`],
      ['PUT', `${base}/mine`, body],
      ['POST', `${base}/mine/examples`, { examples: [{ text: 'new one', match: true }] }],
      ['POST', `${base}/mine/classify`, { texts: ['hello'] }],
      ['DELETE', `${base}/mine`],
    ];
    for (const [method, path, b] of routes) {
      const r = await call(method, path, { key: other.key, body: b });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    const { labels } = grpcClients();
    const md = keyMetadata(other.key);
    const ref = { projectId: owner.projectId, name: 'mine' };
    const rpcs: [keyof typeof labels, object][] = [
      ['listLabels', { projectId: owner.projectId }],
      ['createLabel', { projectId: owner.projectId, name: 'theirs', examples: body.examples }],
      ['getLabel', { ref }],
      ['updateLabel', { ref, examples: body.examples }],
      ['addLabelExamples', { ref, examples: [{ text: 'new one', match: true }] }],
      ['classifyWithLabel', { ref, texts: ['hello'] }],
      ['deleteLabel', { ref }],
    ];
    for (const [method, req] of rpcs) {
      await expect(rpc(labels, method, req as never, md), method).rejects.toMatchObject({ code: GrpcStatus.NOT_FOUND });
    }
    // Still the owner's, unchanged.
    const mine = await call('GET', `${base}/mine`, { key: owner.key });
    expect(mine.body).toMatchObject({ name: 'mine', version: 1 });
  });

  it('are taught and tried over gRPC with the generated client', { timeout: 300_000 }, async () => {
    const t = await newTenant('labels-grpc');
    const { labels } = grpcClients();
    const md = keyMetadata(t.key);
    const created = await rpc(
      labels,
      'createLabel',
      { projectId: t.projectId, name: 'late', examples: examples(MATCHING, OTHER) },
      md,
    );
    expect(created.label).toMatchObject({ name: 'late', version: 1, examplesCount: 20 });
    await ready(t, 'late', 1);
    const tried = await rpc(
      labels,
      'classifyWithLabel',
      { ref: { projectId: t.projectId, name: 'late' }, texts: ['Where is my parcel, it is a week late'] },
      md,
    );
    expect(tried.results[0].match).toBe(true);
    await expect(
      rpc(
        labels,
        'classifyWithLabel',
        { ref: { projectId: t.projectId, name: 'late' }, texts: new Array(101).fill('x') },
        md,
      ),
    ).rejects.toMatchObject({ code: GrpcStatus.INVALID_ARGUMENT });
  });
});
