import { EventType, SentimentTrend } from '../../../gen/profiling/v1/common.js';
import {
  ProfileSort,
  type Profile,
  type SegmentMembership,
  type TimelineEntry,
} from '../../../gen/profiling/v1/profiles.js';
import { SegmentStatus, type Segment } from '../../../gen/profiling/v1/segments.js';
import { DeliveryStatus, type Delivery, type Webhook } from '../../../gen/profiling/v1/webhooks.js';
import { invalid } from '../../errors.js';
import type { ProfileView, SegmentMembershipView, TimelineEntryView } from '../../profiles/read-profiles.js';
import type { SegmentView } from '../../segments/manage-segments.js';
import type { DeliveryView, WebhookView } from '../../webhooks/manage-webhooks.js';

const TREND_TO_PROTO = {
  improving: SentimentTrend.SENTIMENT_TREND_IMPROVING,
  stable: SentimentTrend.SENTIMENT_TREND_STABLE,
  declining: SentimentTrend.SENTIMENT_TREND_DECLINING,
} as const;

/** An enum number this server does not know is the client's error, named like the gateway names it. */
export function trendFromProto(t: SentimentTrend | undefined): string | undefined {
  if (t === undefined || t === SentimentTrend.SENTIMENT_TREND_UNSPECIFIED) return undefined;
  const found = Object.entries(TREND_TO_PROTO).find(([, v]) => v === t);
  if (!found) throw invalid('sentiment_trend', `sentiment_trend ${t} is not a known SentimentTrend`);
  return found[0];
}

const SORT_FROM_PROTO: Partial<Record<ProfileSort, string>> = {
  [ProfileSort.PROFILE_SORT_UPDATED_AT]: 'updated_at',
  [ProfileSort.PROFILE_SORT_CHURN_RISK]: 'churn_risk',
};

/** ListProfiles' order, as the gateway's `sort` names it; an unknown number is refused. */
export function sortFromProto(s: ProfileSort | undefined): string | undefined {
  if (s === undefined || s === ProfileSort.PROFILE_SORT_UNSPECIFIED) return undefined;
  const found = SORT_FROM_PROTO[s];
  if (!found) throw invalid('sort', `sort ${s} is not a known ProfileSort`);
  return found;
}

const EVENT_TO_PROTO = {
  user_added: EventType.EVENT_TYPE_USER_ADDED,
  user_removed: EventType.EVENT_TYPE_USER_REMOVED,
} as const;

export function eventsFromProto(events: EventType[]): string[] {
  return events.map((e, i) => {
    const found = Object.entries(EVENT_TO_PROTO).find(([, v]) => v === e);
    if (!found) throw invalid(`events[${i}]`, `events[${i}] ${e} is not a known EventType`);
    return found[0];
  });
}

export function profileToProto(p: ProfileView): Profile {
  const a = p.aggregates;
  return {
    userId: p.user_id,
    sourceLabel: p.source_label,
    attributes: p.attributes,
    createdAt: p.created_at,
    updatedAt: p.updated_at,
    aggregates: {
      windowSize: a.window_size,
      avgSentiment: a.avg_sentiment,
      sentimentTrend: TREND_TO_PROTO[a.sentiment_trend],
      topTopics: a.top_topics,
      topicScores: a.topic_scores,
      intentionsSummary: a.intentions_summary,
      negativeRatio: a.negative_ratio,
      churnRiskScore: a.churn_risk_score,
      priceSensitiveRatio: a.price_sensitive_ratio,
      messageFrequencyDays: a.message_frequency_days ?? undefined,
      churnRiskFactors: {
        negativeSentiment: a.churn_risk_factors.negative_sentiment,
        decliningTrend: a.churn_risk_factors.declining_trend,
        churnIntent: a.churn_risk_factors.churn_intent,
        // Profiles folded before churn words were kept have none stored.
        churnWords: a.churn_risk_factors.churn_words ?? [],
      },
      messageCount: a.message_count,
      // Profiles folded before labels existed have none stored.
      labels: a.labels ?? [],
      labelRatios: a.label_ratios ?? {},
    } as Profile['aggregates'],
  };
}

export function membershipToProto(m: SegmentMembershipView): SegmentMembership {
  return { pipelineId: m.pipeline_id, segmentId: m.segment_id, name: m.name, score: m.score, since: m.since };
}

export function timelineEntryToProto(e: TimelineEntryView): TimelineEntry {
  return {
    timestamp: e.timestamp,
    sourceLabel: e.source_label,
    text: e.text ?? undefined,
    sentiment: e.sentiment,
    topics: e.topics,
    intentions: e.intentions,
    labels: e.labels,
  };
}

export function webhookToProto(w: WebhookView): Webhook {
  return {
    id: w.id,
    pipelineId: w.pipeline_id,
    url: w.url,
    events: w.events.map((e) => EVENT_TO_PROTO[e]),
    isActive: w.is_active,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    segments: w.segments,
    disabledReason: w.disabled_reason ?? undefined,
    previousSecretExpiresAt: w.previous_secret_expires_at ?? undefined,
  };
}

/** The deliveries list's status filter; an unset field is no filter, any other number is refused. */
export function deliveryStatusFromProto(s: DeliveryStatus | undefined): 'success' | 'failed' | undefined {
  if (s === undefined) return undefined;
  if (s === DeliveryStatus.DELIVERY_STATUS_SUCCESS) return 'success';
  if (s === DeliveryStatus.DELIVERY_STATUS_FAILED) return 'failed';
  throw invalid('status', `status ${s} is not DELIVERY_STATUS_SUCCESS or DELIVERY_STATUS_FAILED`);
}

export function deliveryToProto(d: DeliveryView): Delivery {
  return {
    id: d.id,
    eventId: d.event_id,
    webhookId: d.webhook_id,
    status: d.status === 'success' ? DeliveryStatus.DELIVERY_STATUS_SUCCESS : DeliveryStatus.DELIVERY_STATUS_FAILED,
    statusCode: d.status_code,
    responseBody: d.response_body,
    durationMs: d.duration_ms,
    createdAt: d.created_at,
    retryAfterMs: d.retry_after_ms ?? undefined,
    attempt: d.attempt,
    final: d.final,
    nextAttemptAt: d.next_attempt_at ?? undefined,
    requestHeaders: d.request_headers ?? {},
  };
}

export function segmentToProto(s: SegmentView): Segment {
  return {
    id: s.id,
    pipelineId: s.pipeline_id,
    name: s.name,
    description: s.description,
    rule: s.rule as Record<string, unknown>,
    status: s.status === 'deployed' ? SegmentStatus.SEGMENT_STATUS_DEPLOYED : SegmentStatus.SEGMENT_STATUS_DRAFT,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}
