import { describe, expect, it } from 'vitest';
import { evaluate, multiLabel, polarity } from './eval.js';

describe('eval metrics', () => {
  it('maps sentiment to polarity with the documented cut points', () => {
    expect([-0.2, -0.19, 0, 0.19, 0.2].map(polarity)).toEqual([
      'negative',
      'neutral',
      'neutral',
      'neutral',
      'positive',
    ]);
  });

  it('computes micro and per-label precision, recall and F1', () => {
    const r = multiLabel([['a'], ['a', 'b'], []], [['a'], ['b'], ['b']], ['a', 'b']);
    // a: tp 1, fn 1; b: tp 1, fp 1 -> micro tp 2, fp 1, fn 1
    expect(r.per.a).toMatchObject({ precision: 1, recall: 0.5, support: 2 });
    expect(r.per.b).toMatchObject({ precision: 0.5, recall: 1, support: 1 });
    expect(r.micro.precision).toBeCloseTo(2 / 3);
    expect(r.micro.recall).toBeCloseTo(2 / 3);
  });

  it('computes polarity accuracy and MAE', () => {
    const items = [
      { text: 'x', sentiment: -0.5, topics: [], intentions: ['churn'] },
      { text: 'y', sentiment: 0.5, topics: [], intentions: [] },
    ];
    const r = evaluate(
      items,
      [
        { sentiment: -0.3, topics: [], intentions: ['churn'] },
        { sentiment: 0, topics: [], intentions: [] },
      ],
      [],
      ['churn'],
    );
    expect(r.polarityAccuracy).toBe(0.5);
    expect(r.sentimentMae).toBeCloseTo(0.35);
    expect(r.churn).toMatchObject({ precision: 1, recall: 1 });
  });
});
