import { LRUCache } from 'lru-cache';
import type { Knex } from 'knex';
import type { Embedder, Lane } from '../analysis/embedder.js';
import { semanticDescriptions, type Rule } from './rules.js';
import { AppError } from '../errors.js';

/** What a segment needs to have its semantic conditions matched. */
export interface VectorSegment {
  pk: number;
  version: number;
  rule: Rule;
}

export interface ConditionVectors {
  /**
   * The vectors of the semantic descriptions of these segments, keyed by description. They are
   * read from `segment_condition_vectors` (this embedder's rows); a description with no row yet
   * is embedded and stored first, so each is embedded once per segment and embedder.
   */
  forSegments(db: Knex, segments: VectorSegment[], lane?: Lane): Promise<Map<string, number[]>>;
}

/**
 * A segment's semantic conditions are embedded once and stored with the segment, by the api when
 * the segment is created or its rule changes (embedRuleConditions below). Evaluations and folds
 * read them; only a segment stored before that, or a switch to another embedder, leaves
 * descriptions without a vector, and the first evaluation page or fold that meets one embeds and
 * stores it (once). Folding reads them and this LRU of recently used segments (by pk and version)
 * spares most of those reads. The LRU evicts the least recently used segments one by one: there
 * is no moment when every segment has to be read or embedded again.
 */
export function createConditionVectors(embedder: Embedder, opts: { maxVectors?: number } = {}): ConditionVectors {
  const cache = new LRUCache<string, Map<string, number[]>>({
    // Counted in vectors (2 KB each as float32 in PostgreSQL, ~4 KB as JS numbers).
    maxSize: opts.maxVectors ?? 20_000,
    sizeCalculation: (m) => Math.max(1, m.size),
  });
  const keyOf = (s: VectorSegment) => `${s.pk}:${s.version}`;

  async function load(db: Knex, segments: VectorSegment[], lane?: Lane): Promise<void> {
    const wanted = new Map(segments.map((s) => [s.pk, semanticDescriptions(s.rule)]));
    const pks = segments.filter((s) => wanted.get(s.pk)!.length > 0).map((s) => s.pk);
    const rows: { segment_pk: number; description: string; vector: number[] }[] = pks.length
      ? await db('segment_condition_vectors')
          .where({ embedder: embedder.name })
          .whereIn('segment_pk', pks)
          .select('segment_pk', 'description', 'vector')
      : [];
    const stored = new Map<number, Map<string, number[]>>();
    for (const r of rows) {
      const m = stored.get(Number(r.segment_pk)) ?? new Map<string, number[]>();
      m.set(r.description, r.vector);
      stored.set(Number(r.segment_pk), m);
    }
    const missing = new Set<string>();
    for (const s of segments) {
      for (const d of wanted.get(s.pk)!) if (!stored.get(s.pk)?.has(d)) missing.add(d);
    }
    if (missing.size > 0) {
      const texts = [...missing];
      // Rounded to float32 as PostgreSQL's real[] keeps them: the fold that embeds them and every
      // later fold that reads them match with exactly the same numbers.
      const vectors = (await embedder.embed(texts, lane)).map((v) => v.map(Math.fround));
      const byText = new Map(texts.map((t, i) => [t, vectors[i]]));
      const inserts = segments.flatMap((s) =>
        wanted
          .get(s.pk)!
          .filter((d) => !stored.get(s.pk)?.has(d))
          .map((d) => ({ segment_pk: s.pk, embedder: embedder.name, description: d, vector: byText.get(d)! })),
      );
      for (let i = 0; i < inserts.length; i += 200) {
        await db('segment_condition_vectors')
          .insert(inserts.slice(i, i + 200))
          .onConflict(['segment_pk', 'embedder', 'description'])
          .ignore();
      }
      for (const row of inserts) {
        const m = stored.get(row.segment_pk) ?? new Map<string, number[]>();
        m.set(row.description, row.vector);
        stored.set(row.segment_pk, m);
      }
    }
    for (const s of segments) {
      const all = stored.get(s.pk) ?? new Map<string, number[]>();
      // Only this version's descriptions: rows of an earlier rule are not served (nor deleted: a
      // fold of the earlier version may still be reading them; a segment deletion cascades).
      cache.set(keyOf(s), new Map(wanted.get(s.pk)!.map((d) => [d, all.get(d)!])));
    }
  }

  return {
    async forSegments(db, segments, lane) {
      const misses = segments.filter((s) => !cache.has(keyOf(s)));
      if (misses.length > 0) await load(db, misses, lane);
      const merged = new Map<string, number[]>();
      for (const s of segments) {
        // A segment evicted between load and here (a tiny cache) is loaded again on its own.
        if (!cache.has(keyOf(s))) await load(db, [s], lane);
        for (const [d, v] of cache.get(keyOf(s))!) merged.set(d, v);
      }
      return merged;
    },
  };
}

/**
 * Embeds a rule's semantic descriptions when the segment is created or its rule changes (issue 14):
 * the api does it before it stores the rule, so evaluations and folds only read vectors. Only
 * descriptions the segment has no vector for under this embedder are embedded. A model that
 * cannot answer fails the request with 503 and nothing is stored.
 */
export async function embedRuleConditions(
  db: Knex,
  embedder: Embedder,
  rule: Rule,
  opts: { segmentPk?: number; lane?: Lane } = {},
): Promise<Map<string, number[]>> {
  const stored = new Set<string>(
    opts.segmentPk === undefined
      ? []
      : await db('segment_condition_vectors')
          .where({ segment_pk: opts.segmentPk, embedder: embedder.name })
          .pluck('description'),
  );
  const texts = semanticDescriptions(rule).filter((d) => !stored.has(d));
  if (texts.length === 0) return new Map();
  let vectors: number[][];
  try {
    vectors = await embedder.embed(texts, opts.lane);
  } catch (err) {
    throw new AppError(
      'unavailable',
      `the embedding model could not embed the rule's semantic conditions (${(err as Error).message}); nothing was stored, try again`,
    );
  }
  // Rounded to float32 as PostgreSQL's real[] keeps them, like every vector read back later.
  return new Map(texts.map((t, i) => [t, vectors[i].map(Math.fround)]));
}

/** Stores vectors from embedRuleConditions with their segment, in the transaction that writes the rule. */
export async function storeRuleConditions(
  trx: Knex,
  embedderName: string,
  segmentPk: number,
  vectors: Map<string, number[]>,
): Promise<void> {
  const rows = [...vectors].map(([description, vector]) => ({
    segment_pk: segmentPk,
    embedder: embedderName,
    description,
    vector,
  }));
  for (let i = 0; i < rows.length; i += 200) {
    await trx('segment_condition_vectors')
      .insert(rows.slice(i, i + 200))
      .onConflict(['segment_pk', 'embedder', 'description'])
      .ignore();
  }
}
