import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Db } from '../db/knex.js';
import type { Logger } from '../observability/logger.js';
import { reportProgress } from '../observability/progress.js';
import { loadCorpus, type Corpus } from './corpus.js';
import type { Embedder } from './embedder.js';
import { encodeTexts, FEATURE_COUNT_BESIDE_VECTOR, type Encoded } from './features.js';
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
import { courtesyEnvelopes } from './courtesy-envelope.js';
import { cancellableTraining } from './training-cancel.js';
import type { LinearModel } from './linear.js';
import { PRIOR_NAMES } from './priors.js';
import { unpackSparse } from './sparse-linear.js';

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
  if (h.sarcasm !== undefined) {
    // The detector reads the feature row and the lexicon priors (sarcasm-detector.ts).
    const d = h.sarcasm;
    const dense = inputs + PRIOR_NAMES.length;
    if (
      !validModel(d.dense, dense, 1) ||
      !finite(d.mean, dense) ||
      !finite(d.scale, dense) ||
      !Number.isFinite(d.threshold)
    )
      return 'bad sarcasm detector';
    try {
      const w = unpackSparse(d.words);
      if (w.outputs !== 1 || !w.bias.every(Number.isFinite) || !w.weights.every(Number.isFinite))
        return 'bad sarcasm detector';
    } catch {
      return 'bad sarcasm detector';
    }
  }
  return undefined;
}

/**
 * The heads shipped in the repository for an embedder (data/heads/), made by `npm run train --
 * --ship`. Only the local model's are shipped: other embedders' vectors need the paid API.
 */
export function shippedHeadsFile(embedder: string): string {
  return path.join(SHIPPED_HEADS_DIR, `${embedder.replace(/[^a-z0-9-]+/gi, '-')}.json.gz`);
}

export const SHIPPED_HEADS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/heads');

/** Writes an entry file (`{checksum, heads}`, gzipped when the name ends in .gz) aside, then renames it. */
export function writeEntryFile(file: string, heads: Heads): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const text = JSON.stringify(heads);
  const body = Buffer.from(JSON.stringify({ checksum: checksum(text), heads: text }));
  // Written aside and renamed: a crash never leaves half a file under the real name.
  writeFileSync(`${file}.${process.pid}.tmp`, file.endsWith('.gz') ? gzipSync(body, { level: 9 }) : body);
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/** An entry file's heads; why they cannot be used; or undefined when there is no such file. */
export function readEntryFile(file: string, embedder: string, corpusHash: string): Heads | string | undefined {
  try {
    const raw = readFileSync(file);
    const entry = JSON.parse((file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as {
      checksum: string;
      heads: string;
    };
    return readEntry(entry.heads, entry.checksum, embedder, corpusHash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return (err as Error).message;
  }
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
  /** Where they came from: the database, the file cache, the repository (data/heads/), or trained now. */
  from: 'database' | 'file' | 'shipped' | 'trained';
}

/**
 * The advisory lock of one cache key: a 64-bit number from its hash, in a namespace of its own so
 * it never meets another use of PostgreSQL's advisory locks.
 */
export const headsLockId = (key: string) =>
  createHash('sha256').update(`analysis_heads:${key}`).digest().readBigInt64BE(0).toString();

/**
 * Superseded heads rows of an embedder: all but the current and the newest other one (kept so
 * that a rollback to the previous release finds its heads; older ones are about 11 MB each and
 * no release reads them).
 */
async function deleteSuperseded(db: Db, embedder: string, key: string): Promise<number> {
  const keep = await db('analysis_heads')
    .where({ embedder })
    .whereNot({ cache_key: key })
    .orderBy('created_at', 'desc')
    .first('cache_key');
  return db('analysis_heads')
    .where({ embedder })
    .whereNotIn('cache_key', [key, ...(keep ? [keep.cache_key] : [])])
    .delete();
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
  /** Ends a training or a wait within a second or so (a shutdown): the promise rejects with its reason. */
  signal?: AbortSignal;
  /** Heads made by `npm run train -- --ship`, used when they fit; default shippedHeadsFile(embedder). */
  shippedFile?: string | null;
}): Promise<HeadsSource> {
  const { db } = opts;
  const corpus = opts.corpus ?? loadCorpus();
  const key = headsCacheKey(opts.embedder.name, corpus.hash);
  if (!db) return loadOrTrainHere({ ...opts, corpus, key });
  // One process of the installation trains; the others wait for its row. The trainer holds a
  // transaction-level advisory lock on the key for the whole training (commit, rollback or a
  // dropped connection, a crash, release it, so a dead trainer never blocks the next one). The
  // others hold nothing while they wait: they look for the row and try the lock every
  // HEADS_WAIT_POLL_MS, so a waiting process stops at once (a blocked lock query would hold a
  // pooled connection that the pool's shutdown waits for). The training outlasts the pool's
  // statement_timeout, so the trainer's transaction lifts it.
  let waitingSince: number | undefined;
  for (;;) {
    opts.signal?.throwIfAborted();
    const stored = opts.force ? undefined : await readStored(db, key, { ...opts, corpus });
    if (stored) {
      if (waitingSince !== undefined)
        opts.log?.info('analysis heads trained by another process', { key, waitedMs: Date.now() - waitingSince });
      return stored;
    }
    const mine = await db.transaction(async (trx) => {
      await trx.raw('SET LOCAL statement_timeout = 0');
      const got = await trx.raw('SELECT pg_try_advisory_xact_lock(?::bigint) AS got', [headsLockId(key)]);
      if (!got.rows[0].got) return undefined;
      // The row may have been written between the look and the lock.
      const theirs = opts.force ? undefined : await readStored(trx, key, { ...opts, corpus });
      if (theirs) return theirs;
      const found = await loadOrTrainHere({ ...opts, corpus, key });
      const text = JSON.stringify(found.heads);
      // Training is deterministic, so a row written meanwhile (by `npm run train`) is the same; a
      // damaged row is replaced.
      await trx('analysis_heads')
        .insert({
          cache_key: key,
          embedder: opts.embedder.name,
          corpus_hash: corpus.hash,
          version: found.heads.version,
          heads: text,
          checksum: checksum(text),
        })
        .onConflict('cache_key')
        .merge();
      const deleted = await deleteSuperseded(trx, opts.embedder.name, key);
      if (deleted > 0) opts.log?.info('superseded analysis heads deleted', { embedder: opts.embedder.name, deleted });
      return found;
    });
    if (mine) return mine;
    if (waitingSince === undefined) {
      waitingSince = Date.now();
      opts.log?.info('another process is training the analysis heads; waiting for its result', { key });
    }
    await sleep(HEADS_WAIT_POLL_MS, undefined, { signal: opts.signal });
  }
}

/** Texts embedded per call while training: about a second of work on 2 cores with the local model. */
export const TRAINING_EMBED_SLICE = 64;

/** How often a process waiting for another's training looks for its row. */
const HEADS_WAIT_POLL_MS = 1_000;

/** The stored row of this key, when usable. */
async function readStored(
  db: Db,
  key: string,
  opts: { embedder: Embedder; corpus: Corpus; log?: Logger },
): Promise<HeadsSource | undefined> {
  const row = await db('analysis_heads').where({ cache_key: key }).first('heads', 'checksum');
  if (!row) return undefined;
  const r = readEntry(row.heads, row.checksum, opts.embedder.name, opts.corpus.hash);
  if (typeof r !== 'string') return { heads: r, from: 'database' };
  opts.log?.warn('stored analysis heads are unusable, training again', { key, reason: r });
  return undefined;
}

/** The file cache's heads, or heads trained in this process (and written to the file cache). */
async function loadOrTrainHere(opts: {
  embedder: Embedder;
  cacheDir?: string;
  corpus: Corpus;
  key: string;
  log?: Logger;
  force?: boolean;
  signal?: AbortSignal;
  shippedFile?: string | null;
}): Promise<HeadsSource> {
  const { embedder, cacheDir, log, corpus, key } = opts;
  const file = cacheDir ? path.join(cacheDir, `${key}.json`) : undefined;
  if (file && !opts.force) {
    const r = readEntryFile(file, embedder.name, corpus.hash);
    if (typeof r === 'object') return { heads: r, from: 'file' };
    if (r) log?.warn('cached analysis heads file is unusable, training again', { file, reason: r });
  }
  const shipped = opts.shippedFile === undefined ? shippedHeadsFile(embedder.name) : opts.shippedFile;
  if (shipped && !opts.force) {
    const r = readEntryFile(shipped, embedder.name, corpus.hash);
    if (typeof r === 'object') {
      log?.info('analysis heads loaded from the repository', { file: shipped });
      return { heads: r, from: 'shipped' };
    }
    if (r) log?.info('the shipped analysis heads do not fit this corpus or version; training', { reason: r });
  }
  const started = Date.now();
  log?.info('training analysis heads', { embedder: embedder.name, texts: corpus.items.length });
  // Measured on 2 cores with the local model: 3 to 8 minutes, about 9 since heads v27's wider word
  // table with another job beside it (commit cb0a8da).
  const stopProgress = log
    ? reportProgress((m) => log.info(m), 'training the analysis heads', '3 to 10 min on 2 cores, once per corpus')
    : () => {};
  let embeddedMs = 0;
  let heads: Heads;
  try {
    // Embedded a slice at a time, so that an abort is seen between slices (seconds apart).
    // The corpus, then the sarcasm set (the learned sarcasm detector's examples).
    const encoded: Encoded[] = [];
    // Then the courtesy envelopes of the corpus lines (courtesy-envelope.ts), when the heads use them.
    const envelopes = DEFAULT_HEADS_OPTIONS.courtesyEnvelopes ? courtesyEnvelopes(corpus.items) : [];
    const texts = [
      ...corpus.items.map((it) => it.text),
      ...corpus.sarcasm.map((ex) => ex.text),
      ...envelopes.map((e) => e.text),
    ];
    for (let i = 0; i < texts.length; i += TRAINING_EMBED_SLICE) {
      opts.signal?.throwIfAborted();
      const slice = texts.slice(i, i + TRAINING_EMBED_SLICE);
      encoded.push(...(await encodeTexts(embedder, slice, undefined, { pieces: DEFAULT_HEADS_OPTIONS.stackPieces })));
    }
    embeddedMs = Date.now() - started;
    log?.info('analysis heads: corpus embedded, fitting the heads', { embeddedMs });
    const n = corpus.items.length;
    heads = await cancellableTraining(opts.signal, () =>
      trainHeads({
        embedder: embedder.name,
        corpusHash: corpus.hash,
        items: corpus.items,
        encoded: encoded.slice(0, n),
        sarcasm: {
          examples: corpus.sarcasm,
          encoded: encoded.slice(n, n + corpus.sarcasm.length),
          sarcasticIds: corpus.sarcasticIds,
        },
        envelopes: {
          parent: envelopes.map((e) => e.parent),
          texts: envelopes.map((e) => e.text),
          encoded: encoded.slice(n + corpus.sarcasm.length),
        },
      }),
    );
  } finally {
    stopProgress();
  }
  log?.info('analysis heads trained', {
    embedder: embedder.name,
    embeddedMs,
    trainedMs: Date.now() - started - embeddedMs,
    crossValidation: heads.crossValidation,
  });
  if (file) {
    try {
      writeEntryFile(file, heads);
    } catch (err) {
      log?.warn('could not write the analysis heads file cache', { file, err });
    }
  }
  return { heads, from: 'trained' };
}
