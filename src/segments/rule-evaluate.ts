/**
 * Matches one user against a validated rule. Besides matched / not matched it gives a score in
 * [0, 1] saying how well the user fits, which webhooks carry as `user.score`.
 * Scoring is documented in docs/aggregates-and-rules.md.
 */
import type { Aggregates } from '../profiles/aggregates.js';
import { fieldKind, isOrderOp, type Condition, type Rule, type Scalar, type SemanticCondition } from './rule-validate.js';

export interface MatchContext {
  aggregates: Aggregates;
  attributes: Record<string, unknown>;
  profileEmbedding: number[] | null;
  /** Embeddings of the rule's semantic descriptions, keyed by description. */
  semanticEmbeddings: Map<string, number[]>;
}

export interface RuleResult {
  matched: boolean;
  score: number;
}

const NO_MATCH: RuleResult = { matched: false, score: 0 };
const round4 = (x: number): number => Math.round(x * 10_000) / 10_000 + 0;
const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const result = (matched: boolean, score: number): RuleResult => ({ matched, score: round4(clamp01(score)) });
/** Aggregates are stored rounded to 4 decimals; equality ignores float noise below that. */
const EPSILON = 1e-9;

export function evaluateRule(rule: Rule, ctx: MatchContext): RuleResult {
  if ('all' in rule) {
    const results = rule.all.map((r) => evaluateRule(r, ctx));
    return result(results.every((r) => r.matched), Math.min(...results.map((r) => r.score)));
  }
  if ('any' in rule) {
    const results = rule.any.map((r) => evaluateRule(r, ctx));
    return result(results.some((r) => r.matched), Math.max(...results.map((r) => r.score)));
  }
  if ('semantic' in rule) return evaluateSemantic(rule, ctx);
  return evaluateCondition(rule, ctx);
}

function evaluateSemantic(rule: SemanticCondition, ctx: MatchContext): RuleResult {
  const target = ctx.semanticEmbeddings.get(rule.semantic);
  if (!ctx.profileEmbedding || !target) return NO_MATCH;
  const similarity = round4(clamp01(cosine(ctx.profileEmbedding, target)));
  return result(similarity >= rule.min_similarity, similarity);
}

/** Cosine similarity; 0 for vectors of different length or zero length (nothing to compare). */
export function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  const denom = Math.sqrt(na) * Math.sqrt(nb);
  return denom > 0 && Number.isFinite(dot / denom) ? dot / denom : 0;
}

function evaluateCondition(rule: Condition, ctx: MatchContext): RuleResult {
  const kind = fieldKind(rule.field);
  if (!kind) return NO_MATCH; // a rule stored before the catalogue changed
  switch (kind.kind) {
    case 'number':
      return compareNumber(numericValue(rule.field, ctx.aggregates), rule, kind.scale);
    case 'trend':
      return compareEquality(ctx.aggregates?.sentiment_trend, rule);
    case 'list': {
      const list = (ctx.aggregates as unknown as Record<string, unknown> | undefined)?.[rule.field];
      const labels = Array.isArray(list) ? list : [];
      const wanted = rule.op === 'in' ? (rule.value as Scalar[]) : [rule.value as Scalar];
      // `contains x` and `in [x, y]` (contains any of them) both ask whether the list holds a label.
      const matched = wanted.some((w) => labels.includes(w));
      return result(matched, matched ? 1 : 0);
    }
    case 'attribute':
      return compareAttribute(ctx.attributes ?? {}, kind.key, rule);
  }
}

/** The aggregate's number, or null when absent (message_frequency_days with one message): no op matches null. */
function numericValue(field: string, aggregates: Aggregates | undefined): number | null {
  const raw = field.startsWith('topic_scores.')
    ? // A topic the user never mentioned has a share of 0, not "unknown".
      (aggregates?.topic_scores?.[field.slice('topic_scores.'.length)] ?? 0)
    : (aggregates as unknown as Record<string, unknown> | undefined)?.[field];
  return typeof raw === 'number' && Number.isFinite(raw) ? raw : null;
}

/**
 * Order ops score by margin: score = clamp(0.5 + 0.5 * margin / scale), where margin is how far
 * the value lies on the passing side of the threshold (negative on the failing side). Just
 * passing scores 0.5, passing by a full scale scores 1, failing by a full scale scores 0.
 */
function compareNumber(x: number | null, rule: Condition, scale: (v: number) => number): RuleResult {
  if (x === null) return NO_MATCH;
  if (!isOrderOp(rule.op)) return compareEquality(x, rule);
  const v = rule.value as number;
  const margin = rule.op === '>=' || rule.op === '>' ? x - v : v - x;
  const matched = rule.op === '>=' ? x >= v - EPSILON : rule.op === '<=' ? x <= v + EPSILON : margin > EPSILON;
  return result(matched, 0.5 + (0.5 * margin) / scale(v));
}

/** ==, != and in; scores 1 when matched, 0 when not. */
function compareEquality(x: unknown, rule: Condition): RuleResult {
  const same = (a: unknown, b: Scalar) =>
    typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= EPSILON : a === b;
  let matched: boolean;
  if (rule.op === 'in') matched = (rule.value as Scalar[]).some((v) => same(x, v));
  else if (rule.op === '!=') matched = !same(x, rule.value as Scalar);
  else matched = same(x, rule.value as Scalar);
  return result(matched, matched ? 1 : 0);
}

/**
 * Attributes are free-form, so there is no scale to measure a margin: every op scores 1 or 0.
 * A missing attribute matches only `!=` (a user with no plan is not on plan "pro").
 */
function compareAttribute(attributes: Record<string, unknown>, key: string, rule: Condition): RuleResult {
  if (!Object.hasOwn(attributes, key) || attributes[key] === undefined) {
    return rule.op === '!=' ? result(true, 1) : NO_MATCH;
  }
  const x = attributes[key];
  let matched: boolean;
  if (isOrderOp(rule.op)) {
    const v = rule.value as number;
    matched =
      typeof x === 'number' &&
      (rule.op === '>=' ? x >= v : rule.op === '>' ? x > v : rule.op === '<=' ? x <= v : x < v);
  } else if (rule.op === 'contains') {
    // Substring for strings, membership for arrays.
    matched =
      (typeof x === 'string' && typeof rule.value === 'string' && x.includes(rule.value)) ||
      (Array.isArray(x) && x.includes(rule.value));
  } else {
    return compareEquality(x, rule);
  }
  return result(matched, matched ? 1 : 0);
}
