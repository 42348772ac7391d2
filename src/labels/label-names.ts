import type { Knex } from 'knex';
import type { Db } from '../db/knex.js';
import { labelsNamed, unknownLabel, type Rule } from '../segments/rules.js';

/** The names of a project's custom labels, in name order. */
export function projectLabelNames(db: Db | Knex.Transaction, projectId: number): Promise<string[]> {
  return db('labels').where({ project_id: projectId }).orderBy('name').pluck('name');
}

/**
 * Checks the labels a rule names against the project's, once the caller owns the project, and
 * again inside the segment's write with the labels' rows held (FOR KEY SHARE): a label cannot be
 * deleted between the check and the commit (deleteLabel takes the row FOR UPDATE and then looks for
 * rules that name it), so no stored rule names a label that does not exist.
 */
export async function requireRuleLabels(db: Db | Knex.Transaction, projectId: number, rule: Rule): Promise<void> {
  const names = labelsNamed(rule);
  if (names.length === 0) return;
  const held: string[] = await db('labels')
    .where({ project_id: projectId })
    .whereIn('name', names)
    .forKeyShare()
    .pluck('name');
  if (held.length === names.length) return;
  throw unknownLabel(rule, await projectLabelNames(db, projectId)) ?? new Error('a rule names a missing label');
}
