/**
 * Segment rules: the language and its validation live in rule-validate.ts, matching in
 * rule-evaluate.ts. Callers import from here.
 */
import type { Rule } from './rule-validate.js';

export {
  validateRule,
  fieldKind,
  TOPICS,
  INTENTIONS,
  TRENDS,
  OPS,
  MAX_DEPTH,
  MAX_NODES,
  DEFAULT_MIN_SIMILARITY,
  type Rule,
  type Condition,
  type SemanticCondition,
  type AllRule,
  type AnyRule,
  type Op,
  type Scalar,
} from './rule-validate.js';
export { evaluateRule, cosine, type MatchContext, type RuleResult } from './rule-evaluate.js';

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
