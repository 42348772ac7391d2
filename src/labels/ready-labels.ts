import type { Db } from '../db/knex.js';
import { wordFeatures } from '../analysis/word-features.js';
import { labelScorer, type LabelModel } from './label-model.js';

/** The labels a message matched: their names, in name order. */
export type LabelMatcher = (vector: number[], text: string) => string[];

/**
 * A project's labels that have a trained version, as one matcher for the messages of a chunk or a
 * page. Only models of `embedder` score: a label trained on another embedder's vectors (the
 * provider changed) matches nothing until it is trained again. Cost per message: one pass over
 * the words, then per label a dot product with the vector (docs/labels.md).
 */
export async function readyLabels(db: Db, projectId: number, embedder: string): Promise<LabelMatcher> {
  const rows: { name: string; model: LabelModel }[] = await db('labels')
    .where({ project_id: projectId })
    .whereNotNull('model')
    .orderBy('name')
    .select('name', 'model');
  const scorers = rows
    .filter((r) => r.model.embedder === embedder)
    .map((r) => ({ name: r.name, threshold: r.model.threshold, score: labelScorer(r.model) }));
  if (scorers.length === 0) return () => [];
  return (vector, text) => {
    if (!Array.isArray(vector) || vector.length === 0) return [];
    const words = wordFeatures(text);
    return scorers.filter((s) => s.score(vector, words) >= s.threshold).map((s) => s.name);
  };
}
