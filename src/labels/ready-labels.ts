import type { Db } from '../db/knex.js';
import { wordFeatures } from '../analysis/word-features.js';
import { labelScorer, type LabelModel } from './label-model.js';

/** The labels a message matched: their names, in name order. */
export type LabelMatcher = (vector: number[], text: string) => string[];

type Scorer = { embedder: string; threshold: number; score: ReturnType<typeof labelScorer> };

/**
 * Trained versions this process has read, by label id and version: a version's model never
 * changes, so each chunk reads only which versions are ready (a few small columns) and fetches a
 * model (the vector's weights and the examples' vocabulary, up to a few hundred KB) once per
 * process, not once per chunk. Bounded: the oldest entries go first.
 */
const models = new Map<string, Scorer>();
const MAX_CACHED = 500;

/**
 * A project's labels that have a trained version, as one matcher for the messages of a chunk or a
 * page. Only models of `embedder` score: a label trained on another embedder's vectors (the
 * provider changed) matches nothing until it is trained again. Cost per message: one pass over
 * the words, then per label a dot product with the vector (docs/labels.md).
 */
export async function readyLabels(db: Db, projectId: number, embedder: string): Promise<LabelMatcher> {
  // Which versions are ready: small columns only (a model is read, and decompressed, once).
  const ready: { id: string; name: string; model_version: number }[] = await db('labels')
    .where({ project_id: projectId })
    .whereNotNull('model')
    .orderBy('name')
    .select('id', 'name', 'model_version');
  const key = (r: { id: string; model_version: number }) => `${r.id}/${r.model_version}`;
  const current = new Map(ready.map((r) => [r.id, key(r)]));
  const missing = ready.filter((r) => !models.has(key(r)));
  if (missing.length > 0) {
    const rows: { id: string; model_version: number; model: LabelModel }[] = await db('labels')
      .whereIn(
        'id',
        missing.map((r) => r.id),
      )
      .whereNotNull('model')
      .select('id', 'model_version', 'model');
    for (const r of rows) {
      models.set(key(r), { embedder: r.model.embedder, threshold: r.model.threshold, score: labelScorer(r.model) });
      if (models.size > MAX_CACHED) models.delete(models.keys().next().value!);
      // Retrained between the two reads: the newer version scores this chunk.
      current.set(r.id, key(r));
    }
  }
  return matcherOf(
    ready.flatMap((r) => {
      const s = models.get(current.get(r.id)!);
      return s && s.embedder === embedder ? [{ name: r.name, ...s }] : [];
    }),
  );
}

/** One matcher over scorers: a message's word features once, then each label's score. */
function matcherOf(scorers: (Scorer & { name: string })[]): LabelMatcher {
  if (scorers.length === 0) return () => [];
  return (vector, text) => {
    if (!Array.isArray(vector) || vector.length === 0) return [];
    const words = wordFeatures(text);
    return scorers.filter((s) => s.score(vector, words) >= s.threshold).map((s) => s.name);
  };
}

/** The matcher of trained models, as a chunk uses it (the bench measures it without a database). */
export const labelMatcher = (labels: { name: string; model: LabelModel }[]): LabelMatcher =>
  matcherOf(
    labels.map((l) => ({
      name: l.name,
      embedder: l.model.embedder,
      threshold: l.model.threshold,
      score: labelScorer(l.model),
    })),
  );
