import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { EventType, SentimentTrend } from '../../gen/profiling/v1/common.js';
import { ProfileSort } from '../../gen/profiling/v1/profiles.js';
import { SegmentStatus } from '../../gen/profiling/v1/segments.js';
import { call, newTenant, waitForBatch } from '../support/api.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';

describe('the generated gRPC clients', () => {
  it('identify users, then read profiles and timelines', async () => {
    const t = await newTenant();
    const md = keyMetadata(t.key);
    const { users, profiles, segments } = grpcClients();
    // A segment every user with a message is in, deployed before the batch.
    const segmentRef = { projectId: t.projectId, pipelineId: t.pipelineId, segmentId: 'everyone' };
    await rpc(
      segments,
      'createSegment',
      {
        projectId: t.projectId,
        pipelineId: t.pipelineId,
        id: 'everyone',
        name: 'Everyone',
        rule: { field: 'window_size', op: '>=', value: 1 },
      },
      md,
    );
    await rpc(segments, 'deploySegment', { ref: segmentRef }, md);
    const res = await rpc(
      users,
      'identifyUsers',
      {
        projectId: t.projectId,
        sourceLabel: 'grpc-import',
        users: [
          {
            userId: 'g1',
            text: 'Billing charged me twice, I want a refund.',
            attributes: { plan: 'team', seats: 5 },
            timestamp: new Date('2026-02-01T00:00:00Z'),
          },
          { userId: 'g2', text: 'Nice and simple onboarding.' },
        ],
      },
      md,
    );
    expect(res.accepted).toBe(2);
    expect(await waitForBatch(res.sourceId)).toEqual({ processed: 2, failed: 0 });

    const list = await rpc(
      profiles,
      'listProfiles',
      { projectId: t.projectId, sentimentTrend: SentimentTrend.SENTIMENT_TREND_UNSPECIFIED },
      md,
    );
    expect(list.total).toBe(2);
    expect(list.users.map((u) => u.userId).sort()).toEqual(['g1', 'g2']);
    // Extension: highest churn risk first (ties by user id).
    const byChurn = await rpc(
      profiles,
      'listProfiles',
      { projectId: t.projectId, sentimentTrend: 0, sort: ProfileSort.PROFILE_SORT_CHURN_RISK },
      md,
    );
    const churn = (u: (typeof byChurn.users)[number]) => u.aggregates!.churnRiskScore;
    expect(byChurn.users.map((u) => u.userId)).toEqual(
      [...list.users].sort((x, y) => churn(y) - churn(x) || (x.userId < y.userId ? -1 : 1)).map((u) => u.userId),
    );
    expect(churn(byChurn.users[0])).toBeGreaterThan(churn(byChurn.users[1]));
    const one = await rpc(profiles, 'getProfile', { projectId: t.projectId, userId: 'g1' }, md);
    expect(one.profile).toMatchObject({
      userId: 'g1',
      sourceLabel: 'grpc-import',
      attributes: { plan: 'team', seats: 5 },
    });
    expect(one.profile!.aggregates!.windowSize).toBe(1);
    expect(one.profile!.aggregates!.sentimentTrend).toBe(SentimentTrend.SENTIMENT_TREND_STABLE);
    // The churn factors, words included, are the gateway's.
    const viaHttp = await call('GET', `/api/v1/profiles/g1?project_id=${t.projectId}`, { key: t.key });
    const f = viaHttp.body.aggregates.churn_risk_factors;
    expect(one.profile!.aggregates!.churnRiskFactors).toEqual({
      negativeSentiment: f.negative_sentiment,
      decliningTrend: f.declining_trend,
      churnIntent: f.churn_intent,
      churnWords: f.churn_words,
    });
    // Extension: the user's current segments, as the segment's member list has them.
    const members = await rpc(segments, 'listSegmentUsers', { ref: segmentRef }, md);
    const g1 = members.users.find((u) => u.userId === 'g1')!;
    expect(one.segments).toEqual([
      { pipelineId: t.pipelineId, segmentId: 'everyone', name: 'Everyone', score: g1.score, since: g1.since },
    ]);
    expect(one.segments[0].since).toBeInstanceOf(Date);
    const tl = await rpc(profiles, 'getUserTimeline', { projectId: t.projectId, userId: 'g1' }, md);
    expect(tl.timeline).toHaveLength(1);
    expect(tl.timeline[0].timestamp).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect(tl.timeline[0].text).toBe('Billing charged me twice, I want a refund.');
  });

  it('maps validation and tenancy errors to gRPC status codes', async () => {
    const a = await newTenant('a');
    const b = await newTenant('b');
    const { users, profiles } = grpcClients();
    const empty = await rpc(users, 'identifyUsers', { projectId: a.projectId, users: [] }, keyMetadata(a.key)).catch(
      (e) => e,
    );
    expect(empty.code).toBe(status.INVALID_ARGUMENT);
    expect(empty.metadata.get('error-field')).toEqual(['users']);
    const foreign = await rpc(
      users,
      'identifyUsers',
      { projectId: b.projectId, users: [{ userId: 'x', text: 'hi' }] },
      keyMetadata(a.key),
    ).catch((e) => e);
    expect(foreign.code).toBe(status.NOT_FOUND);
    const badLimit = await rpc(
      profiles,
      'listProfiles',
      { projectId: a.projectId, limit: 101, sentimentTrend: 0 },
      keyMetadata(a.key),
    ).catch((e) => e);
    expect(badLimit.code).toBe(status.INVALID_ARGUMENT);
    const badSort = await rpc(
      profiles,
      'listProfiles',
      { projectId: a.projectId, sentimentTrend: 0, sort: 7 as ProfileSort },
      keyMetadata(a.key),
    ).catch((e) => e);
    expect([badSort.code, badSort.metadata.get('error-field')]).toEqual([status.INVALID_ARGUMENT, ['sort']]);
  });

  it('manages webhooks and segments', async () => {
    const t = await newTenant();
    const md = keyMetadata(t.key);
    const { webhooks, segments } = grpcClients();
    const created = await rpc(
      webhooks,
      'createWebhook',
      {
        projectId: t.projectId,
        pipelineId: t.pipelineId,
        url: 'https://example.com/grpc-hook',
        segments: [],
        secret: 'a-long-enough-secret',
        events: [EventType.EVENT_TYPE_USER_REMOVED],
      },
      md,
    );
    expect(created.webhook).toMatchObject({
      pipelineId: t.pipelineId,
      isActive: true,
      events: [EventType.EVENT_TYPE_USER_REMOVED],
    });
    expect(JSON.stringify(created)).not.toContain('a-long-enough-secret');
    const ref = { projectId: t.projectId, pipelineId: t.pipelineId, webhookId: created.webhook!.id };
    const updated = await rpc(webhooks, 'updateWebhook', { ref, isActive: false }, md);
    expect(updated.webhook!.isActive).toBe(false);
    expect(updated.webhook!.events).toEqual([EventType.EVENT_TYPE_USER_REMOVED]);
    const http = await rpc(
      webhooks,
      'createWebhook',
      { projectId: t.projectId, pipelineId: t.pipelineId, segments: [], url: 'http://x.example', events: [] },
      md,
    ).catch((e) => e);
    expect(http.code).toBe(status.INVALID_ARGUMENT);

    const seg = await rpc(
      segments,
      'createSegment',
      {
        projectId: t.projectId,
        pipelineId: t.pipelineId,
        name: 'At risk',
        rule: {
          all: [
            { field: 'churn_risk_score', op: '>=', value: 0.6 },
            { semantic: 'wants to cancel because of price', min_similarity: 0.3 },
          ],
        },
      },
      md,
    );
    expect(seg.segment).toMatchObject({ id: 'at-risk', status: SegmentStatus.SEGMENT_STATUS_DRAFT });
    const deployed = await rpc(
      segments,
      'deploySegment',
      { ref: { projectId: t.projectId, pipelineId: t.pipelineId, segmentId: 'at-risk' } },
      md,
    );
    expect(deployed.segment!.status).toBe(SegmentStatus.SEGMENT_STATUS_DEPLOYED);
  });
});
