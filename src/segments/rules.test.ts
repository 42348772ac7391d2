import { describe, it, expect } from 'vitest';
import { AppError } from '../errors.js';
import type { Aggregates } from '../profiles/aggregates.js';
import {
  evaluateRule,
  validateRule,
  semanticDescriptions,
  labelsNamed,
  unknownLabel,
  MAX_DEPTH,
  MAX_NODES,
  type MatchContext,
  type Rule,
} from './rules.js';

/** The path and message of the error validateRule throws for `raw`. */
function errorOf(raw: unknown): { field?: string; code: string; message: string } {
  try {
    validateRule(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { field: e.field, code: e.code, message: e.message };
  }
  throw new Error('expected validateRule to throw');
}

const cond = (field: string, op: string, value: unknown) => ({ field, op, value });

describe('validateRule accepts', () => {
  it.each([
    ['numeric threshold', cond('churn_risk_score', '>=', 0.7)],
    ['numeric in', cond('window_size', 'in', [1, 2])],
    ['topic score', cond('topic_scores.pricing', '>', 0.3)],
    ['trend', cond('sentiment_trend', '==', 'declining')],
    ['trend in', cond('sentiment_trend', 'in', ['declining', 'stable'])],
    ['list contains', cond('intentions_summary', 'contains', 'churn')],
    ['attribute equality', cond('attributes.plan', '==', 'pro')],
    ['attribute null', cond('attributes.plan', '!=', null)],
    ['attribute numeric', cond('attributes.seats', '<', 10)],
    ['attribute contains', cond('attributes.email', 'contains', '@acme.com')],
    ['semantic', { semantic: 'frustrated with invoices', min_similarity: 0.4 }],
  ])('%s', (_, rule) => {
    expect(validateRule(rule)).toEqual(rule);
  });

  it('a nested rule, returned as a normalised copy', () => {
    const raw = {
      all: [
        cond('avg_sentiment', '<', 0),
        { any: [{ semantic: 'wants a cheaper plan' }, cond('intentions_summary', 'contains', 'downgrade')] },
      ],
    };
    const rule = validateRule(raw);
    expect(rule).toEqual({
      all: [
        cond('avg_sentiment', '<', 0),
        {
          any: [
            { semantic: 'wants a cheaper plan', min_similarity: 0.5 },
            cond('intentions_summary', 'contains', 'downgrade'),
          ],
        },
      ],
    });
    expect(rule).not.toBe(raw);
  });

  it(`rules exactly ${MAX_DEPTH} deep and ${MAX_NODES} nodes big`, () => {
    let deep: unknown = cond('window_size', '>', 1);
    for (let i = 1; i < MAX_DEPTH; i++) deep = { all: [deep] };
    expect(() => validateRule(deep)).not.toThrow();
    const wide = { any: Array.from({ length: MAX_NODES - 1 }, () => cond('window_size', '>', 1)) };
    expect(() => validateRule(wide)).not.toThrow();
  });
});

describe('validateRule rejects, pointing at the bad node', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['a non-object', 'churn', 'rule', /must be an object/],
    ['an array', [], 'rule', /must be an object/],
    ['an object of no known kind', { foo: 1 }, 'rule', /one of the keys/],
    ['an empty all', { all: [] }, 'rule.all', /non-empty array/],
    ['a non-array any', { any: {} }, 'rule.any', /non-empty array/],
    ['all next to any', { all: [cond('window_size', '>', 1)], any: [] }, 'rule.any', /unknown key/],
    ['an unknown key on a condition', { ...cond('window_size', '>', 1), weight: 2 }, 'rule.weight', /unknown key/],
    ['an unknown field', cond('mood', '>', 1), 'rule.field', /unknown field/],
    ['a topic outside the taxonomy', cond('topic_scores.weather', '>', 0.1), 'rule.field', /unknown field/],
    ['an empty attribute key', cond('attributes.', '==', 1), 'rule.field', /unknown field/],
    // PostgreSQL's jsonb refuses NUL and the escape of a lone surrogate: refused here, not as a 500.
    ['a NUL in an attribute key', cond('attributes.pl\u0000an', '==', 1), 'rule.field', /unknown field/],
    [
      'a NUL in an attribute value',
      cond('attributes.plan', '==', 'pro\u0000'),
      'rule.value',
      /NUL characters or unpaired surrogates/,
    ],
    [
      'a lone surrogate in a semantic description',
      { semantic: 'wants \uD800 out' },
      'rule.semantic',
      /without NUL or unpaired surrogates/,
    ],
    [
      'an unknown op',
      { all: [cond('window_size', '>', 1), cond('window_size', '=>', 1)] },
      'rule.all[1].op',
      /must be one of/,
    ],
    ['contains on a number', cond('avg_sentiment', 'contains', 1), 'rule.op', /does not apply/],
    ['an order op on the trend', cond('sentiment_trend', '>', 'stable'), 'rule.op', /does not apply/],
    ['== on a list', cond('top_topics', '==', 'billing'), 'rule.op', /does not apply/],
    ['in on a list', cond('intentions_summary', 'in', ['churn']), 'rule.op', /does not apply/],
    ['a number on a list', cond('top_topics', 'contains', 1), 'rule.value', /must be one of/],
    [
      'an array attribute value',
      cond('attributes.plan', 'contains', ['a']),
      'rule.value',
      /string, number, boolean or null/,
    ],
    [
      'a bad element of attribute in',
      cond('attributes.plan', 'in', ['a', {}]),
      'rule.value[1]',
      /string, number, boolean or null/,
    ],
    ['a missing op', { field: 'window_size', value: 1 }, 'rule.op', /must be one of/],
    ['a non-string field', cond(3 as unknown as string, '>', 1), 'rule.field', /unknown field/],
    ['a non-number similarity', { semantic: 'angry', min_similarity: '0.5' }, 'rule.min_similarity', /0 to 1/],
    ['an infinite number', cond('avg_sentiment', '>', Infinity), 'rule.value', /finite number/],
    ['a string on a number field', cond('negative_ratio', '>=', '0.5'), 'rule.value', /finite number/],
    ['a missing value', { field: 'negative_ratio', op: '>=' }, 'rule.value', /required/],
    ['an unknown trend', cond('sentiment_trend', '==', 'up'), 'rule.value', /improving, stable, declining/],
    ['an unknown intention', cond('intentions_summary', 'contains', 'cancel'), 'rule.value', /must be one of/],
    [
      'a topic where an intention belongs',
      cond('intentions_summary', 'contains', 'pricing'),
      'rule.value',
      /must be one of/,
    ],
    ['in with a scalar', cond('window_size', 'in', 3), 'rule.value', /non-empty array/],
    ['in with an empty array', cond('attributes.plan', 'in', []), 'rule.value', /non-empty array/],
    ['a bad element of in', cond('sentiment_trend', 'in', ['stable', 'flat']), 'rule.value[1]', /must be one of/],
    [
      'an object attribute value',
      cond('attributes.plan', '==', { a: 1 }),
      'rule.value',
      /string, number, boolean or null/,
    ],
    ['an order op on a string attribute', cond('attributes.plan', '>=', 'pro'), 'rule.value', /finite number/],
    ['an empty description', { semantic: '  ' }, 'rule.semantic', /1 to 500/],
    ['a too long description', { semantic: 'x'.repeat(501) }, 'rule.semantic', /1 to 500/],
    ['a similarity above 1', { semantic: 'angry', min_similarity: 1.2 }, 'rule.min_similarity', /0 to 1/],
    ['an unknown key on a semantic', { semantic: 'angry', field: 'x' }, 'rule.field', /unknown key/],
  ])('%s', (_, raw, path, message) => {
    const e = errorOf(raw);
    expect(e.code).toBe('invalid_argument');
    expect(e.field).toBe(path);
    expect(e.message).toMatch(message);
  });

  it('a deep error with its full path', () => {
    const raw = {
      any: [
        cond('window_size', '>', 1),
        { all: [cond('window_size', '>', 1), { semantic: 'ok', min_similarity: -1 }] },
      ],
    };
    expect(errorOf(raw).field).toBe('rule.any[1].all[1].min_similarity');
  });

  it(`nesting deeper than ${MAX_DEPTH}`, () => {
    let deep: unknown = cond('window_size', '>', 1);
    for (let i = 0; i < MAX_DEPTH; i++) deep = { all: [deep] };
    expect(errorOf(deep)).toMatchObject({
      field: 'rule.all[0].all[0].all[0].all[0].all[0]',
      message: expect.stringMatching(/at most 5 levels/),
    });
  });

  it(`more than ${MAX_NODES} nodes`, () => {
    const wide = { any: Array.from({ length: MAX_NODES }, () => cond('window_size', '>', 1)) };
    expect(errorOf(wide)).toMatchObject({
      field: `rule.any[${MAX_NODES - 1}]`,
      message: expect.stringMatching(/at most 50 nodes/),
    });
  });
});

describe('semanticDescriptions', () => {
  it('lists each description once, in order', () => {
    const rule: Rule = {
      any: [
        { semantic: 'b', min_similarity: 0.5 },
        {
          all: [
            cond('window_size', '>', 1) as Rule,
            { semantic: 'a', min_similarity: 0.2 },
            { semantic: 'b', min_similarity: 0.9 },
          ],
        },
      ],
    };
    expect(semanticDescriptions(rule)).toEqual(['b', 'a']);
    expect(semanticDescriptions(cond('window_size', '>', 1) as Rule)).toEqual([]);
  });
});

const aggregates: Aggregates = {
  window_size: 4,
  avg_sentiment: -0.1,
  sentiment_trend: 'declining',
  top_topics: ['pricing', 'billing', 'support'],
  topic_scores: { pricing: 0.75, billing: 0.5, support: 0.25 },
  intentions_summary: ['price_sensitive', 'churn', 'refund', 'upgrade'],
  negative_ratio: 0.5,
  churn_risk_score: 0.6,
  churn_risk_factors: { negative_sentiment: 0.3, declining_trend: 1, churn_intent: 0.7, churn_words: [] },
  price_sensitive_ratio: 0.5,
  message_frequency_days: 2,
  labels: ['delivery_problem'],
  label_ratios: { delivery_problem: 0.5 },
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

describe('threshold conditions score by margin: 0.5 ± 0.5 * min(1, |x - v| / scale)', () => {
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
    ['window_size', '>=', 20, false, 0.1], // margin -16 over scale max(1, 20) = 20
    ['window_size', '>', 2, true, 1], // margin 2 over scale 2, capped
    ['window_size', '<', 8, true, 0.75], // margin 4 over scale 8
    ['window_size', '<=', 0.5, false, 0], // margin -3.5 over scale max(1, 0.5) = 1, capped
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
    [cond('top_topics', 'contains', 'billing'), true],
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
    [cond('attributes.plan', '>', 1), false], // a string never passes an order op
    [cond('attributes.email', 'contains', '@acme.com'), true],
    [cond('attributes.tags', 'contains', 'eu'), true],
    [cond('attributes.tags', 'contains', 'us'), false],
    [cond('attributes.seats', '==', '12'), false], // no coercion between types
  ])('%j', (raw, matched) => {
    expect(run(raw)).toEqual({ matched, score: matched ? 1 : 0 });
  });

  it('scores numeric attributes by margin over max(1, |v|)', () => {
    expect(run(cond('attributes.seats', '>=', 10))).toEqual({ matched: true, score: 0.6 }); // 0.5 + 0.5 * 2 / 10
    expect(run(cond('attributes.seats', '<', 10))).toEqual({ matched: false, score: 0.4 });
    expect(run(cond('attributes.seats', '>', 0.5))).toEqual({ matched: true, score: 1 }); // margin 11.5 over 1, capped
    expect(run(cond('attributes.seats', '<=', 12))).toEqual({ matched: true, score: 0.5 }); // exactly at the threshold
    expect(run(cond('attributes.seats', '<', -100))).toEqual({ matched: false, score: 0 }); // margin -112 over 100, capped
  });

  it('matches a missing attribute with no op at all, not even !=', () => {
    for (const [op, value] of [
      ['==', 'eu'],
      ['!=', 'eu'],
      ['==', null],
      ['!=', null],
      ['in', ['eu']],
      ['contains', 'e'],
      ['>=', 0],
      ['<', 0],
    ] as const) {
      expect(run(cond('attributes.region', op, value))).toEqual({ matched: false, score: 0 });
    }
    expect(run(cond('attributes.region', '!=', 'eu'), ctx({ attributes: { region: undefined } }))).toEqual({
      matched: false,
      score: 0,
    });
  });

  it('treats a present null as a value', () => {
    expect(run(cond('attributes.region', '==', null), ctx({ attributes: { region: null } }))).toEqual({
      matched: true,
      score: 1,
    });
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
    expect(run({ semantic: 'cheaper plan', min_similarity: 0 }, ctx({ profileEmbedding: null }))).toEqual({
      matched: false,
      score: 0,
    });
    expect(run({ semantic: 'never embedded', min_similarity: 0 })).toEqual({ matched: false, score: 0 });
  });
  it('does not match vectors of different dimensions (another embedder), even with min_similarity 0', () => {
    expect(run({ semantic: 'cheaper plan', min_similarity: 0 }, ctx({ profileEmbedding: [1, 0] }))).toEqual({
      matched: false,
      score: 0,
    });
    expect(
      run({ any: [{ semantic: 'cheaper plan', min_similarity: 0 }] }, ctx({ profileEmbedding: [1, 0, 0, 0, 0] })),
    ).toEqual({ matched: false, score: 0 });
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
    const old = ctx({
      aggregates: { window_size: 3 } as unknown as Aggregates,
      attributes: undefined as unknown as Record<string, unknown>,
    });
    expect(run(cond('churn_risk_score', '>=', 0), old)).toEqual({ matched: false, score: 0 });
    expect(run(cond('top_topics', 'contains', 'billing'), old)).toEqual({ matched: false, score: 0 });
    expect(run(cond('attributes.plan', '==', 'pro'), old)).toEqual({ matched: false, score: 0 });
  });
});

describe('custom label fields', () => {
  const limits = { maxNodes: 50, maxSemantic: 25 };
  const withLabels = { ...limits, labels: ['delivery_problem', 'wrong_size'] };
  const fieldOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as AppError).field;
    }
    return undefined;
  };

  it("takes labels and label_ratio.<name> naming the project's labels, and nothing else", () => {
    expect(validateRule(cond('labels', 'contains', 'delivery_problem'), withLabels)).toEqual(
      cond('labels', 'contains', 'delivery_problem'),
    );
    expect(validateRule(cond('label_ratio.wrong_size', '>=', 0.3), withLabels)).toEqual(
      cond('label_ratio.wrong_size', '>=', 0.3),
    );
    expect(fieldOf(() => validateRule(cond('label_ratio.late', '>=', 0.3), withLabels))).toBe('rule.field');
    expect(() => validateRule(cond('label_ratio.late', '>=', 0.3), withLabels)).toThrow(
      /unknown label "late"; the project's labels are delivery_problem, wrong_size/,
    );
    expect(fieldOf(() => validateRule(cond('labels', 'contains', 'late'), withLabels))).toBe('rule.value');
    expect(fieldOf(() => validateRule(cond('labels', '>=', 1), withLabels))).toBe('rule.op');
    expect(() => validateRule(cond('label_ratio.x', '>=', 0.1), { ...limits, labels: [] })).toThrow(/no labels yet/);
  });

  it('checks the names later when validated without them, with the JSON path of the first unknown one', () => {
    const rule = validateRule(
      {
        all: [
          cond('avg_sentiment', '<', 0),
          { any: [cond('labels', 'contains', 'late'), cond('label_ratio.x', '>', 0)] },
        ],
      },
      limits,
    );
    expect(labelsNamed(rule)).toEqual(['late', 'x']);
    expect((unknownLabel(rule, ['x']) as AppError).field).toBe('rule.all[1].any[0].value');
    expect((unknownLabel(rule, ['late']) as AppError).field).toBe('rule.all[1].any[1].field');
    expect(unknownLabel(rule, ['late', 'x'])).toBeNull();
    // Names that could never be labels are refused at once.
    expect(fieldOf(() => validateRule(cond('label_ratio.Bad Name', '>', 0), limits))).toBe('rule.field');
  });

  it('matches on the window: labels present, and the share of messages, 0 for a label never matched', () => {
    expect(run(cond('labels', 'contains', 'delivery_problem'))).toEqual({ matched: true, score: 1 });
    expect(evaluateRule(cond('label_ratio.delivery_problem', '>=', 0.3) as Rule, ctx())).toMatchObject({
      matched: true,
    });
    expect(evaluateRule(cond('label_ratio.delivery_problem', '>=', 0.6) as Rule, ctx())).toMatchObject({
      matched: false,
    });
    expect(evaluateRule(cond('label_ratio.wrong_size', '<', 0.1) as Rule, ctx())).toMatchObject({ matched: true });
    // A profile folded before labels existed has no label fields: a share of 0, no label present.
    const old = ctx({
      aggregates: { ...aggregates, labels: undefined, label_ratios: undefined } as unknown as Aggregates,
    });
    expect(evaluateRule(cond('label_ratio.delivery_problem', '<', 0.1) as Rule, old)).toMatchObject({ matched: true });
    expect(evaluateRule(cond('labels', 'contains', 'delivery_problem') as Rule, old)).toMatchObject({ matched: false });
  });
});
