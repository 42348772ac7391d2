import { describe, it, expect } from 'vitest';
import { AppError } from '../errors.js';
import { validateRule, semanticDescriptions, MAX_DEPTH, MAX_NODES, type Rule } from './rules.js';

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
    ['list in', cond('top_topics', 'in', ['billing', 'pricing'])],
    ['attribute equality', cond('attributes.plan', '==', 'pro')],
    ['attribute null', cond('attributes.plan', '!=', null)],
    ['attribute numeric', cond('attributes.seats', '<', 10)],
    ['attribute contains', cond('attributes.email', 'contains', '@acme.com')],
    ['semantic', { semantic: 'frustrated with invoices', min_similarity: 0.4 }],
  ])('%s', (_, rule) => {
    expect(validateRule(rule)).toEqual(rule);
  });

  it('a nested rule, returned as a normalised copy', () => {
    const raw = { all: [cond('avg_sentiment', '<', 0), { any: [{ semantic: 'wants a cheaper plan' }, cond('intentions_summary', 'contains', 'downgrade')] }] };
    const rule = validateRule(raw);
    expect(rule).toEqual({
      all: [cond('avg_sentiment', '<', 0), { any: [{ semantic: 'wants a cheaper plan', min_similarity: 0.5 }, cond('intentions_summary', 'contains', 'downgrade')] }],
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
    ['an unknown op', { all: [cond('window_size', '>', 1), cond('window_size', '=>', 1)] }, 'rule.all[1].op', /must be one of/],
    ['contains on a number', cond('avg_sentiment', 'contains', 1), 'rule.op', /does not apply/],
    ['an order op on the trend', cond('sentiment_trend', '>', 'stable'), 'rule.op', /does not apply/],
    ['== on a list', cond('top_topics', '==', 'billing'), 'rule.op', /does not apply/],
    ['a string on a number field', cond('negative_ratio', '>=', '0.5'), 'rule.value', /finite number/],
    ['a missing value', { field: 'negative_ratio', op: '>=' }, 'rule.value', /required/],
    ['an unknown trend', cond('sentiment_trend', '==', 'up'), 'rule.value', /improving, stable, declining/],
    ['an unknown intention', cond('intentions_summary', 'contains', 'cancel'), 'rule.value', /must be one of/],
    ['a topic where an intention belongs', cond('intentions_summary', 'contains', 'pricing'), 'rule.value', /must be one of/],
    ['in with a scalar', cond('window_size', 'in', 3), 'rule.value', /non-empty array/],
    ['in with an empty array', cond('attributes.plan', 'in', []), 'rule.value', /non-empty array/],
    ['a bad element of in', cond('sentiment_trend', 'in', ['stable', 'flat']), 'rule.value[1]', /must be one of/],
    ['an object attribute value', cond('attributes.plan', '==', { a: 1 }), 'rule.value', /string, number, boolean or null/],
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
    const raw = { any: [cond('window_size', '>', 1), { all: [cond('window_size', '>', 1), { semantic: 'ok', min_similarity: -1 }] }] };
    expect(errorOf(raw).field).toBe('rule.any[1].all[1].min_similarity');
  });

  it(`nesting deeper than ${MAX_DEPTH}`, () => {
    let deep: unknown = cond('window_size', '>', 1);
    for (let i = 0; i < MAX_DEPTH; i++) deep = { all: [deep] };
    expect(errorOf(deep)).toMatchObject({ field: 'rule.all[0].all[0].all[0].all[0].all[0]', message: expect.stringMatching(/at most 5 levels/) });
  });

  it(`more than ${MAX_NODES} nodes`, () => {
    const wide = { any: Array.from({ length: MAX_NODES }, () => cond('window_size', '>', 1)) };
    expect(errorOf(wide)).toMatchObject({ field: `rule.any[${MAX_NODES - 1}]`, message: expect.stringMatching(/at most 50 nodes/) });
  });
});

describe('semanticDescriptions', () => {
  it('lists each description once, in order', () => {
    const rule: Rule = {
      any: [
        { semantic: 'b', min_similarity: 0.5 },
        { all: [cond('window_size', '>', 1) as Rule, { semantic: 'a', min_similarity: 0.2 }, { semantic: 'b', min_similarity: 0.9 }] },
      ],
    };
    expect(semanticDescriptions(rule)).toEqual(['b', 'a']);
    expect(semanticDescriptions(cond('window_size', '>', 1) as Rule)).toEqual([]);
  });
});
