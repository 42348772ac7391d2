import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { computeAggregates, meanEmbedding, WINDOW_SIZE, type WindowMessage } from './aggregates.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const msg = (day: number, sentiment: number, topics: string[] = [], intentions: string[] = []): WindowMessage => ({
  timestamp: new Date(T0 + day * DAY),
  sentiment,
  topics,
  intentions,
});
const sentiments = (...values: number[]) => values.map((s, i) => msg(i, s));

describe('computeAggregates', () => {
  it('rejects an empty window', () => {
    expect(WINDOW_SIZE).toBe(20);
    expect(() => computeAggregates([])).toThrow(/at least one message/);
  });

  it('rejects an invalid timestamp', () => {
    expect(() => computeAggregates([{ ...msg(0, 0), timestamp: new Date('nope') }])).toThrow(/invalid timestamp/);
  });

  // The worked example of docs/aggregates-and-rules.md, given out of order.
  it('computes every field of the documented worked example', () => {
    const window = [
      msg(3, -0.4, ['billing', 'pricing'], ['price_sensitive', 'refund']),
      msg(0, 0.6, ['pricing', 'support'], ['upgrade']),
      msg(6, -0.8, ['billing'], ['churn']),
      msg(1, 0.2, ['pricing'], ['price_sensitive']),
    ];
    expect(computeAggregates(window)).toEqual({
      window_size: 4,
      avg_sentiment: -0.1,
      sentiment_trend: 'declining', // recent half -0.6 vs earlier half 0.4
      top_topics: ['pricing', 'billing', 'support'],
      topic_scores: { pricing: 0.75, billing: 0.5, support: 0.25 },
      intentions_summary: ['price_sensitive', 'churn', 'refund', 'upgrade'],
      negative_ratio: 0.5,
      churn_risk_score: 0.6, // 0.4 * 0.3 + 0.2 * 1 + 0.4 * 0.7
      churn_risk_factors: { negative_sentiment: 0.3, declining_trend: 1, churn_intent: 0.7, churn_words: [] },
      price_sensitive_ratio: 0.5,
      message_frequency_days: 2, // (day 6 - day 0) / 3 gaps
      labels: [],
      label_ratios: {},
    });
  });

  it("shares out the custom labels the window's messages matched", () => {
    const window = [
      { ...msg(0, 0), labels: ['delivery_problem'] },
      { ...msg(1, 0), labels: ['delivery_problem', 'wrong_size'] },
      { ...msg(2, 0), labels: [] },
      { ...msg(3, 0) },
    ];
    expect(computeAggregates(window)).toMatchObject({
      labels: ['delivery_problem', 'wrong_size'],
      label_ratios: { delivery_problem: 0.5, wrong_size: 0.25 },
    });
  });

  it('describes a single message without a trend or frequency', () => {
    const a = computeAggregates([msg(0, -0.5, ['support'], ['support_request'])]);
    expect(a).toMatchObject({
      window_size: 1,
      avg_sentiment: -0.5,
      sentiment_trend: 'stable',
      negative_ratio: 1,
      message_frequency_days: null,
      top_topics: ['support'],
      intentions_summary: ['support_request'],
    });
    // negative factor (1 + 0.5) / 2 = 0.75, no trend, no churn intention
    expect(a.churn_risk_score).toBe(0.3);
  });

  it('calls two messages stable however far apart their sentiments are', () => {
    const a = computeAggregates(sentiments(1, -1));
    expect(a.sentiment_trend).toBe('stable');
    expect(a.churn_risk_factors.declining_trend).toBe(0);
  });

  describe('trend dead band of 0.15', () => {
    it('stays stable just inside the band', () => {
      expect(computeAggregates(sentiments(0, 0, 0.14)).sentiment_trend).toBe('stable');
      expect(computeAggregates(sentiments(0.1, 0, -0.04)).sentiment_trend).toBe('stable');
    });
    it('moves at the band edge in both directions', () => {
      expect(computeAggregates(sentiments(0, 0, 0.15)).sentiment_trend).toBe('improving');
      const down = computeAggregates(sentiments(0.1, 0, -0.05));
      expect(down.sentiment_trend).toBe('declining');
      expect(down.churn_risk_factors.declining_trend).toBe(0.15);
    });
    it('ignores the middle message of an odd window', () => {
      expect(computeAggregates(sentiments(0, 1, 0)).sentiment_trend).toBe('stable');
      expect(computeAggregates(sentiments(0.5, 0.5, -1, 0.5, 0.5)).sentiment_trend).toBe('stable');
    });
    it('compares the newer half with the older half', () => {
      // earlier [-0.5, -0.3] = -0.4, recent [0.1, 0.3] = 0.2
      const a = computeAggregates(sentiments(-0.5, -0.3, 0.1, 0.3));
      expect(a.sentiment_trend).toBe('improving');
      expect(a.churn_risk_factors.declining_trend).toBe(0);
    });
    it('caps the declining factor at 1', () => {
      expect(computeAggregates(sentiments(1, 1, -1, -1)).churn_risk_factors.declining_trend).toBe(1);
    });
  });

  it('counts a message as negative at -0.2 but not at -0.19', () => {
    expect(computeAggregates(sentiments(-0.2, -0.19, 0.5)).negative_ratio).toBe(0.3333);
  });

  it('keeps only the newest WINDOW_SIZE messages', () => {
    const old = Array.from({ length: 5 }, (_, i) => msg(i, -1, ['billing'], ['churn']));
    const recent = Array.from({ length: WINDOW_SIZE }, (_, i) => msg(10 + i, 0.5, ['features']));
    const a = computeAggregates([...recent, ...old]);
    expect(a.window_size).toBe(WINDOW_SIZE);
    expect(a.avg_sentiment).toBe(0.5);
    expect(a.topic_scores).toEqual({ features: 1 });
    expect(a.intentions_summary).toEqual([]);
    expect(a.churn_risk_score).toBe(0);
    expect(a.message_frequency_days).toBe(1);
  });

  it('ranks at most 5 topics by score, ties by name', () => {
    const a = computeAggregates([
      msg(0, 0, ['security', 'mobile', 'billing', 'usability', 'support', 'pricing']),
      msg(1, 0, ['support']),
    ]);
    expect(a.top_topics).toEqual(['support', 'billing', 'mobile', 'pricing', 'security']);
    expect(Object.keys(a.topic_scores)).toHaveLength(6);
    expect(a.topic_scores.usability).toBe(0.5);
  });

  it('counts a label repeated within one message once', () => {
    const a = computeAggregates([msg(0, 0, ['pricing', 'pricing'], ['price_sensitive', 'price_sensitive']), msg(1, 0)]);
    expect(a.topic_scores).toEqual({ pricing: 0.5 });
    expect(a.price_sensitive_ratio).toBe(0.5);
  });

  it('weighs churn intentions: one churn message among many already matters', () => {
    const window = [msg(0, 0, [], ['churn']), ...Array.from({ length: 19 }, (_, i) => msg(i + 1, 0))];
    // 0.5 * max 1 + 0.5 * mean 1/20
    expect(computeAggregates(window).churn_risk_factors.churn_intent).toBe(0.525);
    // downgrade weighs 0.6 in every message: 0.5 * 0.6 + 0.5 * 0.6
    expect(computeAggregates([msg(0, 0, [], ['downgrade', 'upgrade'])]).churn_risk_factors.churn_intent).toBe(0.6);
  });

  it('lists the churn words of the window: in most messages first, then the most recent, at most five', () => {
    const said = (day: number, churnWords: string[]) => ({ ...msg(day, -0.5, [], ['churn']), churnWords });
    const a = computeAggregates([
      said(0, ['cancel', 'switching']),
      said(1, ['cancel', 'not worth']),
      msg(2, 0),
      said(3, ['competitor', 'last month', 'leaving', 'goodbye']),
      said(4, ['cancel']),
    ]);
    // cancel in 3 messages; then the newest of the rest (day 3's words, in their order), cut at five
    expect(a.churn_risk_factors.churn_words).toEqual(['cancel', 'competitor', 'last month', 'leaving', 'goodbye']);
    expect(computeAggregates([msg(0, 0)]).churn_risk_factors.churn_words).toEqual([]);
  });

  it('clamps out-of-range sentiments', () => {
    const a = computeAggregates(sentiments(3, 3));
    expect(a.avg_sentiment).toBe(1);
    expect(computeAggregates(sentiments(-7)).churn_risk_factors.negative_sentiment).toBe(1);
  });

  it('rounds to 4 decimals', () => {
    const a = computeAggregates([msg(0, 0.1), msg(1, 0.2), msg(3, 0.2)]);
    expect(a.avg_sentiment).toBe(0.1667);
    expect(a.message_frequency_days).toBe(1.5);
    expect(computeAggregates([msg(0, 0), msg(1 / 3, 0)]).message_frequency_days).toBe(0.3333);
  });

  it('keeps equal timestamps in their given order', () => {
    const same = [msg(0, 0.9), msg(0, 0.9), msg(0, -0.9), msg(0, -0.9)];
    const a = computeAggregates(same);
    expect(a.sentiment_trend).toBe('declining');
    expect(a.message_frequency_days).toBe(0);
  });

  it('survives a JSON roundtrip unchanged, with no -0 and no undefined', () => {
    const tiny = computeAggregates(sentiments(-0.00001, -0.00002, 0.00001));
    expect(Object.is(tiny.avg_sentiment, 0)).toBe(true); // -0.0000067 rounds to -0, normalised to 0
    expect(JSON.parse(JSON.stringify(tiny))).toEqual(tiny);
    const single = computeAggregates([msg(0, -0.00001)]);
    expect(Object.is(single.avg_sentiment, 0)).toBe(true);
    expect(JSON.parse(JSON.stringify(single))).toStrictEqual(single);
    expect(JSON.stringify(single)).toContain('"message_frequency_days":null');
  });

  it('keeps every number finite and in range for any window', () => {
    const arbMsg = fc.record({
      timestamp: fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }),
      sentiment: fc.double({ min: -1, max: 1, noNaN: true }),
      topics: fc.array(fc.constantFrom('pricing', 'billing', 'support', 'mobile')),
      intentions: fc.array(fc.constantFrom('churn', 'refund', 'downgrade', 'upgrade', 'price_sensitive')),
    });
    fc.assert(
      fc.property(fc.array(arbMsg, { minLength: 1, maxLength: 30 }), (window) => {
        const a = computeAggregates(window);
        const unit = [
          a.negative_ratio,
          a.churn_risk_score,
          a.price_sensitive_ratio,
          ...Object.values(a.topic_scores),
          ...Object.values(a.churn_risk_factors),
        ];
        for (const x of unit) expect(x >= 0 && x <= 1).toBe(true);
        expect(a.avg_sentiment >= -1 && a.avg_sentiment <= 1).toBe(true);
        expect(a.window_size).toBe(Math.min(window.length, WINDOW_SIZE));
        if (a.message_frequency_days !== null)
          expect(Number.isFinite(a.message_frequency_days) && a.message_frequency_days >= 0).toBe(true);
        expect(a.top_topics.length).toBeLessThanOrEqual(5);
        // JSON roundtrip is lossless: no undefined, no -0, no NaN or Infinity.
        expect(JSON.parse(JSON.stringify(a))).toStrictEqual(a);
        for (const x of [a.avg_sentiment, ...unit]) expect(Object.is(x, -0)).toBe(false);
      }),
    );
  });
});

describe('meanEmbedding', () => {
  it('averages and re-normalises to unit length', () => {
    const v = meanEmbedding([
      [1, 0, 0],
      [0, 1, 0],
    ])!;
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(v[2]).toBe(0);
    expect(Math.hypot(...v)).toBeCloseTo(1, 12);
  });
  it('returns null with no vectors or a zero mean', () => {
    expect(meanEmbedding([])).toBeNull();
    expect(
      meanEmbedding([
        [1, 0],
        [-1, 0],
      ]),
    ).toBeNull();
  });
  it('rejects vectors of different lengths', () => {
    expect(() =>
      meanEmbedding([
        [1, 0],
        [1, 0, 0],
      ]),
    ).toThrow(/differ in length/);
  });
});
