import { describe, it, expect } from 'vitest';
import type { Aggregates } from '../profiles/aggregates.js';
import { evaluateRule, validateRule, type MatchContext } from './rules.js';

const aggregates: Aggregates = {
  window_size: 4,
  avg_sentiment: -0.1,
  sentiment_trend: 'declining',
  top_topics: ['pricing', 'billing', 'support'],
  topic_scores: { pricing: 0.75, billing: 0.5, support: 0.25 },
  intentions_summary: ['price_sensitive', 'churn', 'refund', 'upgrade'],
  negative_ratio: 0.5,
  churn_risk_score: 0.6,
  churn_risk_factors: { negative_sentiment: 0.3, declining_trend: 1, churn_intent: 0.7 },
  price_sensitive_ratio: 0.5,
  message_frequency_days: 2,
};

const ctx = (over: Partial<MatchContext> = {}): MatchContext => ({
  aggregates,
  attributes: { plan: 'pro', seats: 12, tags: ['beta', 'eu'], email: 'ana@acme.com', trial: false },
  profileEmbedding: [1, 0, 0],
  semanticEmbeddings: new Map([
    ['cheaper plan', [0.6, 0.8, 0]], // cosine 0.6 with the profile
    ['opposite', [-1, 0, 0]],
  ]),
  ...over,
});

/** Validates first, as the service does, so every rule here is one a client could store. */
const run = (raw: unknown, c: MatchContext = ctx()) => evaluateRule(validateRule(raw), c);
const cond = (field: string, op: string, value: unknown) => ({ field, op, value });

describe('threshold conditions score by margin: clamp(0.5 + 0.5 * margin / scale)', () => {
  it.each<[string, string, number, boolean, number]>([
    ['churn_risk_score', '>=', 0.6, true, 0.5], // exactly at the threshold
    ['churn_risk_score', '>=', 0.4, true, 0.6], // 0.5 + 0.5 * 0.2 / 1
    ['churn_risk_score', '>', 0.6, false, 0.5], // strict: equal is not a match
    ['churn_risk_score', '>=', 0.8, false, 0.4],
    ['churn_risk_score', '<=', 0.7, true, 0.55],
    ['churn_risk_score', '<', 0.1, false, 0.25],
    ['avg_sentiment', '<', 0.3, true, 0.6], // margin 0.4 over scale 2
    ['avg_sentiment', '>=', 0.9, false, 0.25], // margin -1 over scale 2
    ['negative_ratio', '>=', 0, true, 0.75],
    ['window_size', '>=', 20, false, 0.1], // margin -16 over scale 20
    ['message_frequency_days', '<=', 7, true, 0.8571], // margin 5 over scale 7
    ['message_frequency_days', '>', 0.5, true, 1], // margin 1.5 over scale 1, capped
    ['topic_scores.pricing', '>', 0.5, true, 0.625],
    ['topic_scores.security', '>=', 0.2, false, 0.4], // never mentioned: share 0
  ])('%s %s %d', (field, op, value, matched, score) => {
    expect(run(cond(field, op, value))).toEqual({ matched, score });
  });

  it('never leaves [0, 1]', () => {
    expect(run(cond('avg_sentiment', '>=', -1000)).score).toBe(1);
    expect(run(cond('avg_sentiment', '>=', 1000)).score).toBe(0);
  });

  it('does not match a null frequency with any op', () => {
    const single = ctx({ aggregates: { ...aggregates, message_frequency_days: null } });
    for (const op of ['>=', '<', '==', '!=']) {
      expect(run(cond('message_frequency_days', op, 1), single)).toEqual({ matched: false, score: 0 });
    }
  });

  it('compares numbers for equality within float noise', () => {
    const noisy = ctx({ aggregates: { ...aggregates, negative_ratio: 0.1 + 0.2 } });
    expect(run(cond('negative_ratio', '==', 0.3), noisy)).toEqual({ matched: true, score: 1 });
    expect(run(cond('negative_ratio', '!=', 0.3), noisy)).toEqual({ matched: false, score: 0 });
    expect(run(cond('window_size', 'in', [3, 4]))).toEqual({ matched: true, score: 1 });
  });
});

describe('equality, in and contains score 1 or 0', () => {
  it.each<[unknown, boolean]>([
    [cond('sentiment_trend', '==', 'declining'), true],
    [cond('sentiment_trend', '!=', 'declining'), false],
    [cond('sentiment_trend', 'in', ['stable', 'improving']), false],
    [cond('intentions_summary', 'contains', 'churn'), true],
    [cond('intentions_summary', 'contains', 'downgrade'), false],
    [cond('top_topics', 'in', ['security', 'billing']), true],
    [cond('top_topics', 'contains', 'mobile'), false],
  ])('%j', (raw, matched) => {
    expect(run(raw)).toEqual({ matched, score: matched ? 1 : 0 });
  });
});

describe('attribute conditions', () => {
  it.each<[unknown, boolean]>([
    [cond('attributes.plan', '==', 'pro'), true],
    [cond('attributes.plan', 'in', ['free', 'pro']), true],
    [cond('attributes.plan', '!=', 'pro'), false],
    [cond('attributes.trial', '==', false), true],
    [cond('attributes.seats', '>=', 10), true],
    [cond('attributes.seats', '<', 10), false],
    [cond('attributes.plan', '>', 1), false], // a string never passes an order op
    [cond('attributes.email', 'contains', '@acme.com'), true],
    [cond('attributes.tags', 'contains', 'eu'), true],
    [cond('attributes.tags', 'contains', 'us'), false],
    [cond('attributes.seats', '==', '12'), false], // no coercion between types
  ])('%j', (raw, matched) => {
    expect(run(raw)).toEqual({ matched, score: matched ? 1 : 0 });
  });

  it('matches a missing attribute only with !=', () => {
    expect(run(cond('attributes.region', '==', 'eu'))).toEqual({ matched: false, score: 0 });
    expect(run(cond('attributes.region', '!=', 'eu'))).toEqual({ matched: true, score: 1 });
    expect(run(cond('attributes.region', '==', null))).toEqual({ matched: false, score: 0 });
  });

  it('treats a present null as a value', () => {
    expect(run(cond('attributes.region', '==', null), ctx({ attributes: { region: null } }))).toEqual({ matched: true, score: 1 });
  });
});

describe('semantic conditions score the similarity', () => {
  it('matches when the cosine reaches min_similarity', () => {
    expect(run({ semantic: 'cheaper plan', min_similarity: 0.6 })).toEqual({ matched: true, score: 0.6 });
    expect(run({ semantic: 'cheaper plan', min_similarity: 0.61 })).toEqual({ matched: false, score: 0.6 });
  });
  it('clamps a negative cosine to 0', () => {
    expect(run({ semantic: 'opposite', min_similarity: 0 })).toEqual({ matched: true, score: 0 });
  });
  it('does not match without a profile embedding or a description embedding', () => {
    expect(run({ semantic: 'cheaper plan', min_similarity: 0 }, ctx({ profileEmbedding: null }))).toEqual({ matched: false, score: 0 });
    expect(run({ semantic: 'never embedded', min_similarity: 0 })).toEqual({ matched: false, score: 0 });
  });
  it('does not match vectors of different dimensions', () => {
    expect(run({ semantic: 'cheaper plan', min_similarity: 0 }, ctx({ profileEmbedding: [1, 0] }))).toEqual({ matched: true, score: 0 });
  });
});

describe('all and any', () => {
  const strong = cond('churn_risk_score', '>=', 0.4); // matched, 0.6
  const negative = cond('avg_sentiment', '<', 0.3); // matched, 0.6
  const barely = cond('churn_risk_score', '>=', 0.6); // matched, 0.5
  const miss = cond('churn_risk_score', '>=', 0.8); // not matched, 0.4
  const semantic = { semantic: 'cheaper plan', min_similarity: 0.5 }; // matched, 0.6

  it('all takes the lowest score and needs every child', () => {
    expect(run({ all: [strong, barely, semantic] })).toEqual({ matched: true, score: 0.5 });
    expect(run({ all: [strong, miss] })).toEqual({ matched: false, score: 0.4 });
  });
  it('any takes the highest score and needs one child', () => {
    expect(run({ any: [miss, barely] })).toEqual({ matched: true, score: 0.5 });
    expect(run({ any: [miss, cond('sentiment_trend', '==', 'stable')] })).toEqual({ matched: false, score: 0.4 });
  });
  it('nests', () => {
    const rule = { all: [negative, { any: [miss, { all: [barely, cond('attributes.plan', '==', 'pro')] }] }] };
    expect(run(rule)).toEqual({ matched: true, score: 0.5 });
  });
  it('takes plain min / max even where a semantic match scores below 0.5', () => {
    // A semantic child matches at similarity 0.3 (min 0.2); its unmatched sibling scores 0.4.
    const c = ctx({ semanticEmbeddings: new Map([['vague', [0.3, Math.sqrt(1 - 0.09), 0]]]) });
    const vague = { semantic: 'vague', min_similarity: 0.2 };
    expect(run(vague, c)).toEqual({ matched: true, score: 0.3 });
    expect(run({ any: [miss, vague] }, c)).toEqual({ matched: true, score: 0.4 });
    expect(run({ all: [barely, vague] }, c)).toEqual({ matched: true, score: 0.3 });
  });
});

describe('stored aggregates that predate a field', () => {
  it('does not match instead of throwing', () => {
    const old = ctx({ aggregates: { window_size: 3 } as unknown as Aggregates, attributes: undefined as unknown as Record<string, unknown> });
    expect(run(cond('churn_risk_score', '>=', 0), old)).toEqual({ matched: false, score: 0 });
    expect(run(cond('top_topics', 'contains', 'billing'), old)).toEqual({ matched: false, score: 0 });
    expect(run(cond('attributes.plan', '==', 'pro'), old)).toEqual({ matched: false, score: 0 });
  });
});
