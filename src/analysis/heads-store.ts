import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { loadCorpus, type Corpus } from './corpus.js';
import type { Embedder } from './embedder.js';
import { encodeTexts, FEATURE_COUNT_BESIDE_VECTOR } from './features.js';
import {
  DEFAULT_HEADS_OPTIONS,
  HEADS_VERSION,
  polarityStackInputs,
  stackInputCount,
  wordReaderOf,
  type Heads,
  type LabelHead,
} from './heads.js';
import { scopeInputCount } from './intent-scope.js';
import { trainHeads } from './train-heads.js';
import type { LinearModel } from './linear.js';

/**
 * Heads are trained per embedder: vectors of another model (OpenAI instead of the local one, or
 * another OpenAI model) need their own. The cache key names the embedder, the corpus' hash and the
 * training version, so switching provider or editing the corpus trains new heads by itself.
 *
 * Where they are kept: PostgreSQL (`analysis_heads`), shared by every worker of the installation,
 * and a file cache on this machine (under $XDG_CACHE_HOME) that spares a new database the corpus'
 * embedding. Both are checked before use (checksum and shapes); a missing, damaged or foreign entry
 * is trained again and replaced, never used.
 */
export function headsCacheKey(embedder: string, corpusHash: string): string {
  return createHash('sha256').update(`${HEADS_VERSION}\n${embedder}\n${corpusHash}`).digest('hex');
}

const checksum = (text: string) => createHash('sha256').update(text).digest('hex');

const finite = (a: unknown, n: number) =>
  Array.isArray(a) && a.length === n && a.every((v) => typeof v === 'number' && Number.isFinite(v));

function validModel(m: LinearModel | undefined, inputs: number, outputs: number): boolean {
  return (
    !!m &&
    m.inputs === inputs &&
    m.outputs === outputs &&
    finite(m.weights, inputs * outputs) &&
    finite(m.bias, outputs)
  );
}

function validHead(h: LabelHead | undefined, inputs: number, stackWeights: (label: string) => number): boolean {
  return (
    !!h &&
    Array.isArray(h.labels) &&
    validModel(h.model, inputs, h.labels.length) &&
    finite(h.thresholds, h.labels.length) &&
    finite(h.calibration?.a, h.labels.length) &&
    finite(h.calibration?.b, h.labels.length) &&
    (h.stack === undefined ||
      (Array.isArray(h.stack) &&
        h.stack.length === h.labels.length &&
        h.stack.every((w, k) => finite(w, stackWeights(h.labels[k])))))
  );
}

/** Why these heads cannot be used for this embedder and corpus, or undefined when they can. */
function headsProblem(h: Heads, embedder: string, corpusHash: string): string | undefined {
  if (h?.version !== HEADS_VERSION) return `version ${h?.version} is not ${HEADS_VERSION}`;
  if (h.embedder !== embedder) return `trained for ${h.embedder}, not ${embedder}`;
  if (h.corpusHash !== corpusHash) return 'trained on another corpus';
  const inputs = h.dimensions + FEATURE_COUNT_BESIDE_VECTOR;
  if (!(h.dimensions > 0) || !finite(h.mean, inputs) || !finite(h.scale, inputs)) return 'bad standardisation';
  if (typeof h.options !== 'object' || h.options === null) return 'no options';
  const stackWeights = (label: string) =>
    stackInputCount(h.options) + (h.options.scope ? scopeInputCount(label) : 0) + 1;
  if (
    !validHead(h.topics, inputs, stackWeights) ||
    !validHead(h.intentions, inputs, stackWeights) ||
    !validHead(h.churn, inputs, stackWeights)
  )
    return 'bad label head';
  if (
    !validModel(h.polarity?.model, inputs, 3) ||
    !finite(h.polarity.offsets, 3) ||
    !(h.polarity.temperature > 0) ||
    !Number.isFinite(h.polarity.wordWeight) ||
    (!!h.options.priors !== !!h.polarity.stack && !!h.options.calibrate) ||
    (h.polarity.stack !== undefined && !validModel(h.polarity.stack, polarityStackInputs(h.options), 3)) ||
    !finite(h.sentiment?.means, 3)
  )
    return 'bad sentiment head';
  if (!!h.options.stackWords !== !!h.words) return 'word reader missing or unexpected';
  if (h.words) {
    try {
      const r = wordReaderOf(h)!;
      const all = [r.polarity, r.topics, r.intentions];
      if (
        r.polarity.outputs !== 3 ||
        r.topics.outputs !== h.topics.labels.length ||
        r.intentions.outputs !== h.intentions.labels.length + 1
      )
        return 'bad word reader';
      if (all.some((m) => !m.bias.every(Number.isFinite) || !m.weights.every(Number.isFinite)))
        return 'bad word reader';
    } catch {
      return 'bad word reader';
    }
  }
  return undefined;
}

/** Parses a stored entry, or says why it cannot be used. */
function readEntry(text: string, sum: string, embedder: string, corpusHash: string): Heads | string {
  if (checksum(text) !== sum) return 'checksum mismatch';
  let heads: Heads;
  try {
    heads = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  return headsProblem(heads, embedder, corpusHash) ?? heads;
}

export interface HeadsSource {
  heads: Heads;
  /** Where they came from: the database, the file cache, or trained now. */
  from: 'database' | 'file' | 'trained';
}

export async function loadOrTrainHeads(opts: {
  embedder: Embedder;
  db?: Db;
  /** Folder of the file cache; undefined: none. */
  cacheDir?: string;
  corpus?: Corpus;
  log?: Logger;
  /** Train even when a usable entry is stored (`npm run train`). */
  force?: boolean;
}): Promise<HeadsSource> {
  const { embedder, db, cacheDir, log } = opts;
  const corpus = opts.corpus ?? loadCorpus();
  const key = headsCacheKey(embedder.name, corpus.hash);
  const file = cacheDir ? path.join(cacheDir, `${key}.json`) : undefined;

  if (db && !opts.force) {
    const row = await db('analysis_heads').where({ cache_key: key }).first('heads', 'checksum');
    if (row) {
      const r = readEntry(row.heads, row.checksum, embedder.name, corpus.hash);
      if (typeof r !== 'string') return { heads: r, from: 'database' };
      log?.warn('stored analysis heads are unusable, training again', { key, reason: r });
    }
  }
  let found: HeadsSource | undefined;
  if (file && !opts.force) {
    try {
      const entry = JSON.parse(readFileSync(file, 'utf8')) as { checksum: string; heads: string };
      const r = readEntry(entry.heads, entry.checksum, embedder.name, corpus.hash);
      if (typeof r !== 'string') found = { heads: r, from: 'file' };
      else log?.warn('cached analysis heads file is unusable, training again', { file, reason: r });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        log?.warn('cached analysis heads file is unusable, training again', { file, err });
    }
  }
  if (!found) {
    const started = Date.now();
    log?.info('training analysis heads', { embedder: embedder.name, texts: corpus.items.length });
    const encoded = await encodeTexts(
      embedder,
      corpus.items.map((it) => it.text),
      undefined,
      { pieces: DEFAULT_HEADS_OPTIONS.stackPieces },
    );
    const embeddedMs = Date.now() - started;
    const heads = await trainHeads({ embedder: embedder.name, corpusHash: corpus.hash, items: corpus.items, encoded });
    log?.info('analysis heads trained', {
      embedder: embedder.name,
      embeddedMs,
      trainedMs: Date.now() - started - embeddedMs,
      crossValidation: heads.crossValidation,
    });
    found = { heads, from: 'trained' };
  }
  const text = JSON.stringify(found.heads);
  const sum = checksum(text);
  if (file && found.from === 'trained') {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // Written aside and renamed: a crash never leaves half a file under the real name.
      writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify({ checksum: sum, heads: text }));
      renameSync(`${file}.${process.pid}.tmp`, file);
    } catch (err) {
      log?.warn('could not write the analysis heads file cache', { file, err });
    }
  }
  if (db) {
    // Another worker may have trained the same heads meanwhile: training is deterministic, so
    // either row is the same; a damaged row is replaced.
    await db('analysis_heads')
      .insert({
        cache_key: key,
        embedder: embedder.name,
        corpus_hash: corpus.hash,
        version: found.heads.version,
        heads: text,
        checksum: sum,
      })
      .onConflict('cache_key')
      .merge();
  }
  return found;
}
