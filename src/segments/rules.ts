/**
 * Segment rules: the rule language (types and field catalogue), its validation, and matching with
 * a score. Rules are checked once, when a segment is written, so evaluation can trust their shape;
 * every validation error names the offending node as a JSON path (`rule.all[1].op`).
 * Formulas and worked examples: docs/aggregates-and-rules.md.
 */
import { invalid, quotaExceeded } from '../errors.js';
import { isStorableText } from '../validation.js';
import { SENTIMENT_TRENDS, type Aggregates } from '../profiles/aggregates.js';
// The labels a rule may name are the ones the analyser emits: one list, in analysis/taxonomy.json.
import { INTENTIONS, TOPICS } from '../analysis/taxonomy.js';

export const OPS = ['>=', '>', '<=', '<', '==', '!=', 'in', 'contains'] as const;
export type Op = (typeof OPS)[number];
export type Scalar = string | number | boolean | null;

export interface Condition {
  field: string;
  op: Op;
  value: Scalar | Scalar[];
}
export interface SemanticCondition {
  semantic: string;
  min_similarity: number;
}
export interface AllRule {
  all: Rule[];
}
export interface AnyRule {
  any: Rule[];
}
export type Rule = Condition | SemanticCondition | AllRule | AnyRule;

export const MAX_DEPTH = 5;
/** The size of one rule (src/quotas.ts FIXED_QUOTAS uses the same). */
export const MAX_NODES = 50;
export const MAX_SEMANTIC_CONDITIONS = 25;
export const MAX_SEMANTIC_LENGTH = 500;
export const MAX_ATTRIBUTE_KEY_LENGTH = 100;
/** Used when a semantic condition leaves out `min_similarity`; stored explicitly after validation. */
export const DEFAULT_MIN_SIMILARITY = 0.5;

/** How a field is compared. `scale` turns a threshold margin into a score (see compareNumber below). */
export type FieldKind =
  | { kind: 'number'; scale: (threshold: number) => number }
  | { kind: 'trend' }
  | { kind: 'list'; labels: readonly string[] }
  | { kind: 'attribute'; key: string };

const width = (w: number) => () => w;
/** A margin relative to the threshold itself, for numbers with no natural width. */
const relativeScale = (v: number): number => Math.max(1, Math.abs(v));
/** Aggregates that are plain numbers, with the width of a "whole" margin for scoring. */
export const NUMERIC_FIELDS: Readonly<Record<string, FieldKind>> = {
  avg_sentiment: { kind: 'number', scale: width(2) },
  churn_risk_score: { kind: 'number', scale: width(1) },
  negative_ratio: { kind: 'number', scale: width(1) },
  price_sensitive_ratio: { kind: 'number', scale: width(1) },
  // Counts and days have no natural width: a margin is measured relative to the threshold itself.
  window_size: { kind: 'number', scale: relativeScale },
  message_frequency_days: { kind: 'number', scale: relativeScale },
};
const TOPIC_SCORE: FieldKind = { kind: 'number', scale: width(1) };
const LABEL_RATIO = 'label_ratio.';

/**
 * The kind of `field`, or null if the rule language does not know it. `labels`: the project's
 * custom labels, when validating (a rule may name only those); null when matching, where a rule
 * already validated may name a label deleted since (it then matches no one, as a share of 0 would).
 */
function fieldKind(field: string, labels: readonly string[] | null = null): FieldKind | null {
  if (field === 'labels') return { kind: 'list', labels: labels ?? [] };
  if (field.startsWith(LABEL_RATIO)) {
    const name = field.slice(LABEL_RATIO.length);
    return labels === null || labels.includes(name) ? TOPIC_SCORE : null;
  }
  if (Object.hasOwn(NUMERIC_FIELDS, field)) return NUMERIC_FIELDS[field];
  if (field === 'sentiment_trend') return { kind: 'trend' };
  if (field === 'top_topics') return { kind: 'list', labels: TOPICS };
  if (field === 'intentions_summary') return { kind: 'list', labels: INTENTIONS };
  if (field.startsWith('topic_scores.')) {
    return TOPICS.includes(field.slice('topic_scores.'.length)) ? TOPIC_SCORE : null;
  }
  if (field.startsWith('attributes.')) {
    const key = field.slice('attributes.'.length);
    return key.length > 0 && key.length <= MAX_ATTRIBUTE_KEY_LENGTH ? { kind: 'attribute', key } : null;
  }
  return null;
}

const ORDER_OPS: readonly Op[] = ['>=', '>', '<=', '<'];
const isOrderOp = (op: Op): boolean => ORDER_OPS.includes(op);
const ALLOWED_OPS: Record<FieldKind['kind'], readonly Op[]> = {
  number: ['>=', '>', '<=', '<', '==', '!=', 'in'],
  trend: ['==', '!=', 'in'],
  list: ['contains'],
  attribute: OPS,
};

export interface RuleLimits {
  /** Nodes (conditions and groups) in one rule: a size bound, 400 when over. */
  maxNodes: number;
  /** Distinct semantic descriptions in one rule: each costs an embedding and a comparison per fold, 422 when over. */
  maxSemantic: number;
  /**
   * The project's custom labels, the only ones `labels` and `label_ratio.<name>` may name. Absent:
   * any slug is taken here, and the caller checks the names (unknownLabel) once it has checked
   * that the project is the caller's, so a rule cannot probe another tenant's label names.
   */
  labels?: readonly string[];
}
const DEFAULT_LIMITS: RuleLimits = { maxNodes: MAX_NODES, maxSemantic: MAX_SEMANTIC_CONDITIONS };

/** Validates untrusted JSON as a Rule and returns a normalised copy; throws `invalid(path, ...)`. */
export function validateRule(raw: unknown, limits: RuleLimits = DEFAULT_LIMITS, path = 'rule'): Rule {
  const counter = { nodes: 0, maxNodes: limits.maxNodes, labels: limits.labels ?? null };
  const rule = validateNode(raw, path, 1, counter);
  const semantic = semanticDescriptions(rule).length;
  if (semantic > limits.maxSemantic) {
    throw quotaExceeded(
      path,
      `a rule may have at most ${limits.maxSemantic} distinct semantic conditions (has ${semantic}); split it into several segments`,
    );
  }
  return rule;
}

type Walk = { nodes: number; maxNodes: number; labels: readonly string[] | null };

function validateNode(raw: unknown, path: string, depth: number, counter: Walk): Rule {
  if (depth > MAX_DEPTH) throw invalid(path, `rules may nest at most ${MAX_DEPTH} levels deep`);
  if (++counter.nodes > counter.maxNodes) throw invalid(path, `a rule may have at most ${counter.maxNodes} nodes`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(path, 'must be an object: a condition, a semantic condition, {"all": [...]} or {"any": [...]}');
  }
  const node = raw as Record<string, unknown>;
  for (const group of ['all', 'any'] as const) {
    if (!Object.hasOwn(node, group)) continue;
    onlyKeys(node, [group], path);
    const children = node[group];
    if (!Array.isArray(children) || children.length === 0)
      throw invalid(`${path}.${group}`, 'must be a non-empty array of rules');
    const rules = children.map((child, i) => validateNode(child, `${path}.${group}[${i}]`, depth + 1, counter));
    return group === 'all' ? { all: rules } : { any: rules };
  }
  if (Object.hasOwn(node, 'semantic')) return validateSemantic(node, path);
  if (Object.hasOwn(node, 'field')) return validateCondition(node, path, counter.labels);
  throw invalid(path, 'must have one of the keys "all", "any", "field" or "semantic"');
}

function validateSemantic(node: Record<string, unknown>, path: string): SemanticCondition {
  onlyKeys(node, ['semantic', 'min_similarity'], path);
  const text = node.semantic;
  if (
    typeof text !== 'string' ||
    text.trim().length === 0 ||
    text.length > MAX_SEMANTIC_LENGTH ||
    !isStorableText(text)
  ) {
    throw invalid(
      `${path}.semantic`,
      `must be a description of 1 to ${MAX_SEMANTIC_LENGTH} characters, without NUL or unpaired surrogates`,
    );
  }
  const min = node.min_similarity ?? DEFAULT_MIN_SIMILARITY;
  if (typeof min !== 'number' || !Number.isFinite(min) || min < 0 || min > 1) {
    throw invalid(`${path}.min_similarity`, 'must be a number from 0 to 1');
  }
  return { semantic: text, min_similarity: min };
}

function validateCondition(node: Record<string, unknown>, path: string, labels: readonly string[] | null): Condition {
  onlyKeys(node, ['field', 'op', 'value'], path);
  const field = node.field;
  const kind = typeof field === 'string' && isStorableText(field) ? fieldKind(field, labels) : null;
  if (typeof field === 'string' && field.startsWith(LABEL_RATIO)) {
    const name = field.slice(LABEL_RATIO.length);
    if (labels === null ? !isLabelName(name) : !kind)
      throw invalid(`${path}.field`, unknownLabelMessage(name, labels ?? []));
  }
  if (typeof field !== 'string' || !kind) {
    throw invalid(
      `${path}.field`,
      `unknown field; expected one of ${[...Object.keys(NUMERIC_FIELDS), 'sentiment_trend', 'top_topics', 'intentions_summary', 'labels'].join(', ')}, ` +
        `topic_scores.<topic> with a known topic, label_ratio.<label> with one of the project's labels, or attributes.<key>`,
    );
  }
  const op = node.op;
  if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
    throw invalid(`${path}.op`, `must be one of ${OPS.join(' ')}`);
  }
  if (!ALLOWED_OPS[kind.kind].includes(op as Op)) {
    throw invalid(`${path}.op`, `"${op}" does not apply to ${field}; use one of ${ALLOWED_OPS[kind.kind].join(' ')}`);
  }
  if (!Object.hasOwn(node, 'value')) throw invalid(`${path}.value`, 'is required');
  return { field, op: op as Op, value: validateValue(kind, op as Op, node.value, `${path}.value`, labels) };
}

function validateValue(
  kind: FieldKind,
  op: Op,
  value: unknown,
  path: string,
  labels: readonly string[] | null,
): Scalar | Scalar[] {
  if (op === 'in') {
    if (!Array.isArray(value) || value.length === 0) throw invalid(path, '"in" needs a non-empty array');
    return value.map((v, i) => validateScalar(kind, op, v, `${path}[${i}]`, labels));
  }
  return validateScalar(kind, op, value, path, labels);
}

function validateScalar(
  kind: FieldKind,
  op: Op,
  value: unknown,
  path: string,
  labels: readonly string[] | null,
): Scalar {
  switch (kind.kind) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(path, 'must be a finite number');
      return value;
    case 'trend':
      return oneOf(value, SENTIMENT_TRENDS, path);
    case 'list':
      // `labels` while the project's names are not known yet: any name, checked later (unknownLabel).
      if (kind.labels.length === 0 && labels === null) {
        if (typeof value !== 'string' || !isLabelName(value))
          throw invalid(path, "must be the name of one of the project's labels");
        return value;
      }
      return oneOf(value, kind.labels, path);
    case 'attribute':
      if (isOrderOp(op) && (typeof value !== 'number' || !Number.isFinite(value))) {
        throw invalid(path, `"${op}" needs a finite number`);
      }
      if (!isScalar(value)) throw invalid(path, 'must be a string, number, boolean or null');
      if (typeof value === 'string' && !isStorableText(value))
        throw invalid(path, 'must not contain NUL characters or unpaired surrogates');
      return value;
  }
}

function oneOf(value: unknown, allowed: readonly string[], path: string): string {
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalid(
      path,
      allowed.length ? `must be one of ${allowed.join(', ')}` : 'names a label, and the project has no labels yet',
    );
  return value;
}

const isScalar = (v: unknown): v is Scalar =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function onlyKeys(node: Record<string, unknown>, allowed: string[], path: string): void {
  const extra = Object.keys(node).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw invalid(`${path}.${extra}`, `unknown key; expected only ${allowed.join(', ')}`);
}

const isLabelName = (name: string) => /^[a-z0-9_-]{1,64}$/.test(name);
const unknownLabelMessage = (name: string, labels: readonly string[]) =>
  `unknown label "${name}"; ` +
  (labels.length ? `the project's labels are ${labels.join(', ')}` : 'the project has no labels yet');

/**
 * The first label a validated rule names that is not among the project's `labels`, as the error
 * to answer (its JSON path), or null. For rules validated without the project's names.
 */
export function unknownLabel(rule: Rule, labels: readonly string[], path = 'rule'): Error | null {
  if ('all' in rule || 'any' in rule) {
    const group = 'all' in rule ? 'all' : 'any';
    const children = 'all' in rule ? rule.all : (rule as AnyRule).any;
    for (let i = 0; i < children.length; i++) {
      const found = unknownLabel(children[i], labels, `${path}.${group}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if ('semantic' in rule) return null;
  if (rule.field.startsWith(LABEL_RATIO) && !labels.includes(rule.field.slice(LABEL_RATIO.length))) {
    return invalid(`${path}.field`, unknownLabelMessage(rule.field.slice(LABEL_RATIO.length), labels));
  }
  if (rule.field === 'labels' && typeof rule.value === 'string' && !labels.includes(rule.value)) {
    return invalid(`${path}.value`, unknownLabelMessage(rule.value, labels));
  }
  return null;
}

/** The labels a rule names (deleting one of them would leave the rule matching no one). */
export function labelsNamed(rule: Rule): string[] {
  if ('all' in rule) return [...new Set(rule.all.flatMap(labelsNamed))];
  if ('any' in rule) return [...new Set(rule.any.flatMap(labelsNamed))];
  if ('semantic' in rule) return [];
  if (rule.field.startsWith(LABEL_RATIO)) return [rule.field.slice(LABEL_RATIO.length)];
  return rule.field === 'labels' && typeof rule.value === 'string' ? [rule.value] : [];
}

/** Distinct semantic descriptions in the rule, in first-seen order, so each is embedded once. */
export function semanticDescriptions(rule: Rule): string[] {
  const found = new Set<string>();
  const visit = (r: Rule): void => {
    if ('all' in r) r.all.forEach(visit);
    else if ('any' in r) r.any.forEach(visit);
    else if ('semantic' in r) found.add(r.semantic);
  };
  visit(rule);
  return [...found];
}

// ---------------------------------------------------------------------------------------------
// Matching

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
    return result(
      results.every((r) => r.matched),
      Math.min(...results.map((r) => r.score)),
    );
  }
  if ('any' in rule) {
    const results = rule.any.map((r) => evaluateRule(r, ctx));
    return result(
      results.some((r) => r.matched),
      Math.max(...results.map((r) => r.score)),
    );
  }
  if ('semantic' in rule) return evaluateSemantic(rule, ctx);
  return evaluateCondition(rule, ctx);
}

function evaluateSemantic(rule: SemanticCondition, ctx: MatchContext): RuleResult {
  const target = ctx.semanticEmbeddings.get(rule.semantic);
  // Vectors of different lengths come from different embedders (a provider or model change): they
  // are not comparable, so the condition does not match at all, whatever min_similarity says
  // (a similarity of 0 would otherwise satisfy `min_similarity: 0` and match everyone).
  if (!ctx.profileEmbedding || !target || ctx.profileEmbedding.length !== target.length || target.length === 0)
    return NO_MATCH;
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
      const matched = labels.includes(rule.value);
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
    : field.startsWith(LABEL_RATIO)
      ? // Likewise a label none of the window's messages matched (or a profile folded before labels).
        (aggregates?.label_ratios?.[field.slice(LABEL_RATIO.length)] ?? 0)
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
 * Attributes are free-form. Order ops match numbers only and score by margin with the relative
 * scale max(1, |v|); ==, !=, in and contains score 1 or 0. A missing attribute (absent or
 * undefined) matches no op at all, not even `!=`: a rule cannot say anything about a value the
 * tenant never sent. An attribute present with value null is compared as null.
 */
function compareAttribute(attributes: Record<string, unknown>, key: string, rule: Condition): RuleResult {
  if (!Object.hasOwn(attributes, key) || attributes[key] === undefined) return NO_MATCH;
  const x = attributes[key];
  if (isOrderOp(rule.op)) {
    return typeof x === 'number' && Number.isFinite(x) ? compareNumber(x, rule, relativeScale) : NO_MATCH;
  }
  if (rule.op === 'contains') {
    // Substring for strings, membership for arrays.
    const matched =
      (typeof x === 'string' && typeof rule.value === 'string' && x.includes(rule.value)) ||
      (Array.isArray(x) && x.includes(rule.value));
    return result(matched, matched ? 1 : 0);
  }
  return compareEquality(x, rule);
}
