import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyzer, INTENTIONS, TOPICS } from '../../src/analysis/analyze.js';
import { loadCorpus, type Corpus } from '../../src/analysis/corpus.js';
import { normalizeText } from '../../src/analysis/normalize.js';
import { createLocalEmbedder, createOpenAIEmbedder } from '../../src/analysis/embedder.js';
import { encodeTexts } from '../../src/analysis/features.js';
import { DEFAULT_HEADS_OPTIONS } from '../../src/analysis/heads.js';
import { SARCASM_THRESHOLD } from '../../src/analysis/sarcasm-detector.js';
import { trainHeads } from '../../src/analysis/train-heads.js';
import { sentencesOf } from '../../src/analysis/sentences.js';
import {
  headsCacheKey,
  headsLockId,
  loadOrTrainHeads,
  readEntryFile,
  TRAINING_EMBED_SLICE,
  writeEntryFile,
} from '../../src/analysis/heads-store.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { createLogger } from '../../src/observability/logger.js';
import { counting } from '../support/counting-embedder.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { remembering } from '../support/remembering-embedder.js';
import { testDatabaseUrl } from '../support/database.js';

/**
 * A slice of the real corpus under a hash of its own, so these rows never meet the running
 * worker's heads (and training stays a few seconds).
 */
function sampleCorpus(n: number): Corpus {
  const full = loadCorpus();
  // Every 7th message: all files, all labels, not only the first file's.
  const items = full.items.filter((_, i) => i % 7 === 0).slice(0, n);
  // And every 20th line of the sarcasm set (the learned sarcasm detector's examples).
  const sarcasm = full.sarcasm.filter((_, i) => i % 20 === 0);
  return { items, hash: `test-${randomUUID()}`, files: full.files, sarcasm, sarcasticIds: full.sarcasticIds };
}

/**
 * What training embeds, in one call: with sentence pieces, the messages read whole, then the
 * sentences of the long ones; without, every message whole.
 */
/** What the embedder is asked for: the corpus' texts as every reader reads them (normalize.ts). */
const embeddedTexts = (c: Corpus) => {
  const texts = [...c.items, ...c.sarcasm].map((it) => normalizeText(it.text));
  const slices: string[][] = [];
  // Training embeds the corpus a slice at a time (so that a shutdown is seen between slices).
  for (let i = 0; i < texts.length; i += TRAINING_EMBED_SLICE) slices.push(texts.slice(i, i + TRAINING_EMBED_SLICE));
  return slices.flatMap((slice) =>
    DEFAULT_HEADS_OPTIONS.stackPieces
      ? [...slice.filter((t) => sentencesOf(t).length === 0), ...slice.flatMap((t) => sentencesOf(t))]
      : slice,
  );
};

describe('analysis heads: trained per embedder, cached, checked', () => {
  let db: Db;
  let cacheDir: string;
  const log = createLogger('silent');
  // Trained again and again on the same slice: each text is embedded once (the requests still come).
  const local = remembering(createLocalEmbedder({ threads: 2 }));
  const corpus = sampleCorpus(240);

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'heads-cache-'));
  });
  afterAll(async () => {
    await db('analysis_heads').where('corpus_hash', 'like', 'test-%').delete();
    await db.destroy();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('trains deterministically: the same corpus and vectors give the same heads', { timeout: 180_000 }, async () => {
    const encoded = await encodeTexts(
      local,
      corpus.items.map((it) => it.text),
      undefined,
      { pieces: DEFAULT_HEADS_OPTIONS.stackPieces },
    );
    const sarcasm = {
      examples: corpus.sarcasm,
      encoded: await encodeTexts(
        local,
        corpus.sarcasm.map((ex) => ex.text),
        undefined,
        { pieces: false },
      ),
      sarcasticIds: corpus.sarcasticIds,
    };
    const input = { embedder: local.name, corpusHash: corpus.hash, items: corpus.items, encoded, sarcasm };
    const [a, b] = [await trainHeads(input), await trainHeads(input)];
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // The learned sarcasm detector is trained with them, and only when there is a sarcasm set.
    expect(a.sarcasm?.threshold).toBe(SARCASM_THRESHOLD);
    expect((await trainHeads({ ...input, sarcasm: undefined })).sarcasm).toBeUndefined();
    // ...and different labels give different heads (the comparison can fail).
    const relabelled = { ...input, items: corpus.items.map((it, i) => (i % 2 ? { ...it, topics: ['billing'] } : it)) };
    expect(JSON.stringify((await trainHeads(relabelled)).topics)).not.toBe(JSON.stringify(a.topics));
  });

  it(
    'trains when nothing is stored, then serves from PostgreSQL without embedding the corpus again',
    { timeout: 180_000 },
    async () => {
      const { embedder, texts } = counting(local);
      const first = await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log });
      expect(first.from).toBe('trained');
      expect(texts).toEqual(embeddedTexts(corpus));
      const key = headsCacheKey(local.name, corpus.hash);
      expect(await db('analysis_heads').where({ cache_key: key }).first('embedder', 'corpus_hash')).toEqual({
        embedder: local.name,
        corpus_hash: corpus.hash,
      });
      expect(existsSync(path.join(cacheDir, `${key}.json`))).toBe(true);

      texts.length = 0;
      const second = await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log });
      expect(second.from).toBe('database');
      expect(texts).toHaveLength(0);
      expect(JSON.stringify(second.heads)).toBe(JSON.stringify(first.heads));
    },
  );

  it(
    'loads shipped heads that fit the corpus without embedding it, and stores them; trains past ones that do not',
    { timeout: 180_000 },
    async () => {
      const key = headsCacheKey(local.name, corpus.hash);
      // This corpus' heads, trained by the test above, shipped as `npm run train -- --ship` writes them.
      const trained = readEntryFile(path.join(cacheDir, `${key}.json`), local.name, corpus.hash);
      if (typeof trained !== 'object') throw new Error(`no trained heads to ship: ${trained}`);
      const shipped = path.join(cacheDir, 'shipped', 'local.json.gz');
      writeEntryFile(shipped, trained);
      await db('analysis_heads').where({ cache_key: key }).delete();
      const emptyCache = mkdtempSync(path.join(os.tmpdir(), 'heads-cache-'));
      try {
        const { embedder, texts } = counting(local);
        const loaded = await loadOrTrainHeads({
          embedder,
          db,
          cacheDir: emptyCache,
          corpus,
          log,
          shippedFile: shipped,
        });
        expect(loaded.from).toBe('shipped');
        expect(texts).toHaveLength(0);
        expect(JSON.stringify(loaded.heads)).toBe(JSON.stringify(trained));
        expect(await db('analysis_heads').where({ cache_key: key }).first('corpus_hash')).toEqual({
          corpus_hash: corpus.hash,
        });
        // Another corpus (an edited data/train/): the shipped file does not fit, and is not used.
        const edited = { ...corpus, items: corpus.items.slice(0, 120), hash: `test-${randomUUID()}` };
        const other = await loadOrTrainHeads({
          embedder,
          db,
          cacheDir: emptyCache,
          corpus: edited,
          log,
          shippedFile: shipped,
        });
        expect(other.from).toBe('trained');
        expect(texts).toEqual(embeddedTexts(edited));
      } finally {
        rmSync(emptyCache, { recursive: true, force: true });
      }
    },
  );

  it(
    'rebuilds a damaged or missing cache: a corrupt row and file are trained again and replaced; a good file refills the database',
    { timeout: 240_000 },
    async () => {
      const { embedder, texts } = counting(local);
      const key = headsCacheKey(local.name, corpus.hash);
      const file = path.join(cacheDir, `${key}.json`);
      const good = await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log });

      // A good file, no row (a new database on this machine): from the file, and the row is back.
      await db('analysis_heads').where({ cache_key: key }).delete();
      texts.length = 0;
      expect((await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log })).from).toBe('file');
      expect(texts).toHaveLength(0);
      expect(await db('analysis_heads').where({ cache_key: key }).first('cache_key')).toBeTruthy();

      // Row damaged (one weight changed, checksum kept) and file garbage: trained again, both replaced.
      const row = await db('analysis_heads').where({ cache_key: key }).first('heads');
      await db('analysis_heads')
        .where({ cache_key: key })
        .update({ heads: row.heads.replace(/"weights":\[(-?\d)/, '"weights":[9$1') });
      writeFileSync(file, '{"checksum":"x","heads":"{not json');
      texts.length = 0;
      const rebuilt = await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log });
      expect(rebuilt.from).toBe('trained');
      expect(texts).toEqual(embeddedTexts(corpus));
      expect(JSON.stringify(rebuilt.heads)).toBe(JSON.stringify(good.heads));
      expect((await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log })).from).toBe('database');
      expect(JSON.parse(readFileSync(file, 'utf8')).heads).toBe(JSON.stringify(good.heads));

      // Heads of another embedder stored under this key (a bad copy between installations): refused.
      const foreign = { ...good.heads, embedder: 'openai:some-model' };
      const text = JSON.stringify(foreign);
      await db('analysis_heads')
        .where({ cache_key: key })
        .update({ heads: text, checksum: createHash('sha256').update(text).digest('hex') });
      rmSync(file);
      expect((await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log })).from).toBe('trained');

      // A stored word reader whose shape does not fit its labels (checksum kept): refused too.
      expect(good.heads.words).toBeDefined();
      const misshapen = JSON.stringify({
        ...good.heads,
        words: { ...good.heads.words!, topics: good.heads.words!.polarity },
      });
      await db('analysis_heads')
        .where({ cache_key: key })
        .update({ heads: misshapen, checksum: createHash('sha256').update(misshapen).digest('hex') });
      rmSync(file);
      expect((await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log })).from).toBe('trained');

      // A stored sarcasm detector whose dense model does not fit the feature row (checksum kept): refused too.
      expect(good.heads.sarcasm).toBeDefined();
      const narrow = JSON.stringify({
        ...good.heads,
        sarcasm: { ...good.heads.sarcasm!, dense: { ...good.heads.sarcasm!.dense, inputs: 3 } },
      });
      await db('analysis_heads')
        .where({ cache_key: key })
        .update({ heads: narrow, checksum: createHash('sha256').update(narrow).digest('hex') });
      rmSync(file);
      expect((await loadOrTrainHeads({ embedder, db, cacheDir, corpus, log })).from).toBe('trained');
    },
  );

  describe('with the openai provider (an OpenAI-compatible server standing in for the paid API)', () => {
    let fake: FakeOpenAI;
    beforeAll(async () => {
      fake = await startFakeOpenAI();
    });
    afterAll(() => fake.close());

    it(
      'trains its own heads on its own vectors, stored beside the local ones, and analyses with them',
      { timeout: 120_000 },
      async () => {
        const embedder = createOpenAIEmbedder({
          apiKey: 'sk-test',
          baseURL: fake.baseURL,
          model: 'fake-embedding-model',
        });
        const analyzer = await createAnalyzer(embedder, { db, cacheDir, corpus, log });
        expect(fake.inputs).toEqual(embeddedTexts(corpus));
        expect(analyzer.heads).toMatchObject({
          embedder: 'openai:fake-embedding-model',
          dimensions: 64,
          corpusHash: corpus.hash,
        });
        const keys = await db('analysis_heads')
          .where({ corpus_hash: corpus.hash })
          .orderBy('embedder')
          .pluck('embedder');
        expect(keys).toEqual([local.name, 'openai:fake-embedding-model']);

        fake.inputs.length = 0;
        const [a] = await analyzer.analyzeBatch(['I was charged twice for my invoice, please refund me']);
        expect(fake.inputs).toHaveLength(1);
        expect(a.embedding).toHaveLength(64);
        expect(a.topics.every((t) => TOPICS.includes(t))).toBe(true);
        expect(a.intentions.every((t) => INTENTIONS.includes(t))).toBe(true);
        // The next worker of this installation loads them instead of training.
        fake.inputs.length = 0;
        expect((await loadOrTrainHeads({ embedder, db, corpus, log })).from).toBe('database');
        expect(fake.inputs).toHaveLength(0);
      },
    );
  });
  it(
    "trains once for the installation: a second process waits for the first one's result instead of training too",
    { timeout: 240_000 },
    async () => {
      const own = sampleCorpus(120);
      const a = counting(local);
      const b = counting(local);
      // The key's advisory lock, as pg_locks shows a bigint one: high 32 bits, low 32 bits.
      const id = BigInt(headsLockId(headsCacheKey(local.name, own.hash)));
      const [hi, lo] = [Number(BigInt.asUintN(32, id >> 32n)), Number(BigInt.asUintN(32, id))];
      const seen = { held: 0, waiting: 0 };
      let done = false;
      const watch = (async () => {
        while (!done) {
          const { rows } = await db.raw(
            `SELECT count(*) FILTER (WHERE granted)::int AS held, count(*) FILTER (WHERE NOT granted)::int AS waiting
             FROM pg_locks WHERE locktype = 'advisory' AND classid = ? AND objid = ? AND objsubid = 1`,
            [hi, lo],
          );
          seen.held = Math.max(seen.held, rows[0].held);
          seen.waiting = Math.max(seen.waiting, rows[0].waiting);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const [first, second] = await Promise.all([
        loadOrTrainHeads({ embedder: a.embedder, db, corpus: own, log }),
        loadOrTrainHeads({ embedder: b.embedder, db, corpus: own, log }),
      ]).finally(() => (done = true));
      await watch;
      // One held the lock while it trained; the other never queued on it (it polls, holding nothing).
      expect(seen).toEqual({ held: 1, waiting: 0 });
      expect([first.from, second.from].sort()).toEqual(['database', 'trained']);
      // Only the one that trained embedded the corpus.
      expect([a.texts.length, b.texts.length].sort((x, y) => x - y)).toEqual([0, embeddedTexts(own).length]);
      expect(JSON.stringify(first.heads)).toBe(JSON.stringify(second.heads));
      expect(await db('analysis_heads').where({ corpus_hash: own.hash }).count({ n: '*' })).toEqual([{ n: 1 }]);
    },
  );

  it(
    'deletes superseded heads of its embedder, keeping the newest other one for a rollback',
    { timeout: 240_000 },
    async () => {
      const name = `test-embedder-${randomUUID()}`;
      const embedder = { ...local, name, embed: (t: string[]) => local.embed(t) };
      const old = (k: number, daysAgo: number) => ({
        cache_key: `${name}-old-${k}`,
        embedder: name,
        corpus_hash: `test-old-${k}`,
        version: 1,
        heads: '{}',
        checksum: 'x',
        created_at: new Date(Date.now() - daysAgo * 86_400_000),
      });
      await db('analysis_heads').insert([old(1, 30), old(2, 20), old(3, 10)]);
      // Another embedder's rows are not this one's to delete.
      const other = { ...old(4, 40), embedder: `${name}-other`, cache_key: `${name}-other` };
      await db('analysis_heads').insert(other);
      const own = sampleCorpus(120);
      expect((await loadOrTrainHeads({ embedder, db, corpus: own, log })).from).toBe('trained');
      const left = await db('analysis_heads')
        .whereIn('embedder', [name, `${name}-other`])
        .orderBy('cache_key')
        .pluck('cache_key');
      expect(left.sort()).toEqual([headsCacheKey(name, own.hash), `${name}-old-3`, `${name}-other`].sort());
      await db('analysis_heads')
        .whereIn('embedder', [name, `${name}-other`])
        .delete();
    },
  );
});
