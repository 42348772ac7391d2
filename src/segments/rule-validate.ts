/**
 * The segment rule language (types and field catalogue) and its validation. Rules are checked
 * once, when a segment is written, so evaluation can trust their shape; every error names the
 * offending node as a JSON path (`rule.all[1].op`).
 */
import { invalid } from '../errors.js';

export const TOPICS = [
  'pricing', 'billing', 'support', 'performance', 'reliability', 'usability',
  'onboarding', 'integrations', 'security', 'mobile', 'features',
] as const;
export const INTENTIONS = [
  'churn', 'upgrade', 'downgrade', 'refund', 'price_sensitive', 'feature_request', 'recommend', 'support_request',
] as const;
export const TRENDS = ['improving', 'stable', 'declining'] as const;

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
export const MAX_NODES = 50;
export const MAX_SEMANTIC_LENGTH = 500;
export const MAX_ATTRIBUTE_KEY_LENGTH = 100;
/** Used when a semantic condition leaves out `min_similarity`; stored explicitly after validation. */
export const DEFAULT_MIN_SIMILARITY = 0.5;

/** How a field is compared. `scale` turns a threshold margin into a score (see rule-evaluate.ts). */
export type FieldKind =
  | { kind: 'number'; scale: (threshold: number) => number }
  | { kind: 'trend' }
  | { kind: 'list'; labels: readonly string[] }
  | { kind: 'attribute'; key: string };

const width = (w: number) => () => w;
/** Aggregates that are plain numbers, with the width of a "whole" margin for scoring. */
export const NUMERIC_FIELDS: Readonly<Record<string, FieldKind>> = {
  avg_sentiment: { kind: 'number', scale: width(2) },
  churn_risk_score: { kind: 'number', scale: width(1) },
  negative_ratio: { kind: 'number', scale: width(1) },
  price_sensitive_ratio: { kind: 'number', scale: width(1) },
  window_size: { kind: 'number', scale: width(20) },
  // Days have no natural width: a margin is measured relative to the threshold itself.
  message_frequency_days: { kind: 'number', scale: (v) => Math.max(1, Math.abs(v)) },
};
const TOPIC_SCORE: FieldKind = { kind: 'number', scale: width(1) };

/** The kind of `field`, or null if the rule language does not know it. */
export function fieldKind(field: string): FieldKind | null {
  if (Object.hasOwn(NUMERIC_FIELDS, field)) return NUMERIC_FIELDS[field];
  if (field === 'sentiment_trend') return { kind: 'trend' };
  if (field === 'top_topics') return { kind: 'list', labels: TOPICS };
  if (field === 'intentions_summary') return { kind: 'list', labels: INTENTIONS };
  if (field.startsWith('topic_scores.')) {
    return (TOPICS as readonly string[]).includes(field.slice('topic_scores.'.length)) ? TOPIC_SCORE : null;
  }
  if (field.startsWith('attributes.')) {
    const key = field.slice('attributes.'.length);
    return key.length > 0 && key.length <= MAX_ATTRIBUTE_KEY_LENGTH ? { kind: 'attribute', key } : null;
  }
  return null;
}

const ORDER_OPS: readonly Op[] = ['>=', '>', '<=', '<'];
export const isOrderOp = (op: Op): boolean => ORDER_OPS.includes(op);
const ALLOWED_OPS: Record<FieldKind['kind'], readonly Op[]> = {
  number: ['>=', '>', '<=', '<', '==', '!=', 'in'],
  trend: ['==', '!=', 'in'],
  list: ['contains', 'in'],
  attribute: OPS,
};

/** Validates untrusted JSON as a Rule and returns a normalised copy; throws `invalid(path, ...)`. */
export function validateRule(raw: unknown, path = 'rule'): Rule {
  const counter = { nodes: 0 };
  return validateNode(raw, path, 1, counter);
}

function validateNode(raw: unknown, path: string, depth: number, counter: { nodes: number }): Rule {
  if (depth > MAX_DEPTH) throw invalid(path, `rules may nest at most ${MAX_DEPTH} levels deep`);
  if (++counter.nodes > MAX_NODES) throw invalid(path, `a rule may have at most ${MAX_NODES} nodes`);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(path, 'must be an object: a condition, a semantic condition, {"all": [...]} or {"any": [...]}');
  }
  const node = raw as Record<string, unknown>;
  for (const group of ['all', 'any'] as const) {
    if (!Object.hasOwn(node, group)) continue;
    onlyKeys(node, [group], path);
    const children = node[group];
    if (!Array.isArray(children) || children.length === 0) throw invalid(`${path}.${group}`, 'must be a non-empty array of rules');
    const rules = children.map((child, i) => validateNode(child, `${path}.${group}[${i}]`, depth + 1, counter));
    return group === 'all' ? { all: rules } : { any: rules };
  }
  if (Object.hasOwn(node, 'semantic')) return validateSemantic(node, path);
  if (Object.hasOwn(node, 'field')) return validateCondition(node, path);
  throw invalid(path, 'must have one of the keys "all", "any", "field" or "semantic"');
}

function validateSemantic(node: Record<string, unknown>, path: string): SemanticCondition {
  onlyKeys(node, ['semantic', 'min_similarity'], path);
  const text = node.semantic;
  if (typeof text !== 'string' || text.trim().length === 0 || text.length > MAX_SEMANTIC_LENGTH) {
    throw invalid(`${path}.semantic`, `must be a description of 1 to ${MAX_SEMANTIC_LENGTH} characters`);
  }
  const min = node.min_similarity ?? DEFAULT_MIN_SIMILARITY;
  if (typeof min !== 'number' || !Number.isFinite(min) || min < 0 || min > 1) {
    throw invalid(`${path}.min_similarity`, 'must be a number from 0 to 1');
  }
  return { semantic: text, min_similarity: min };
}

function validateCondition(node: Record<string, unknown>, path: string): Condition {
  onlyKeys(node, ['field', 'op', 'value'], path);
  const field = node.field;
  const kind = typeof field === 'string' ? fieldKind(field) : null;
  if (typeof field !== 'string' || !kind) {
    throw invalid(
      `${path}.field`,
      `unknown field; expected one of ${[...Object.keys(NUMERIC_FIELDS), 'sentiment_trend', 'top_topics', 'intentions_summary'].join(', ')}, ` +
        `topic_scores.<topic> with a known topic, or attributes.<key>`,
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
  return { field, op: op as Op, value: validateValue(kind, op as Op, node.value, `${path}.value`) };
}

function validateValue(kind: FieldKind, op: Op, value: unknown, path: string): Scalar | Scalar[] {
  if (op === 'in') {
    if (!Array.isArray(value) || value.length === 0) throw invalid(path, '"in" needs a non-empty array');
    return value.map((v, i) => validateScalar(kind, op, v, `${path}[${i}]`));
  }
  return validateScalar(kind, op, value, path);
}

function validateScalar(kind: FieldKind, op: Op, value: unknown, path: string): Scalar {
  switch (kind.kind) {
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(path, 'must be a finite number');
      return value;
    case 'trend':
      return oneOf(value, TRENDS, path);
    case 'list':
      return oneOf(value, kind.labels, path);
    case 'attribute':
      if (isOrderOp(op) && (typeof value !== 'number' || !Number.isFinite(value))) {
        throw invalid(path, `"${op}" needs a finite number`);
      }
      if (!isScalar(value)) throw invalid(path, 'must be a string, number, boolean or null');
      return value;
  }
}

function oneOf(value: unknown, allowed: readonly string[], path: string): string {
  if (typeof value !== 'string' || !allowed.includes(value)) throw invalid(path, `must be one of ${allowed.join(', ')}`);
  return value;
}

const isScalar = (v: unknown): v is Scalar =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

function onlyKeys(node: Record<string, unknown>, allowed: string[], path: string): void {
  const extra = Object.keys(node).find((k) => !allowed.includes(k));
  if (extra !== undefined) throw invalid(`${path}.${extra}`, `unknown key; expected only ${allowed.join(', ')}`);
}
