import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INTENTIONS, TOPICS } from '../analysis/analyze.js';
import { loadCorpus, parseLabelled, REGISTERS, type LabelledText } from '../analysis/corpus.js';
import { createLocalEmbedder, type Embedder } from '../analysis/embedder.js';
import { evaluate, polarity, polarityConfusion, type Predicted, type Prf } from '../analysis/eval.js';
import { encodeTexts } from '../analysis/features.js';
import { applyHeads, DEFAULT_HEADS_OPTIONS, type Heads, type HeadsOptions } from '../analysis/heads.js';
import { sarcasmByWriter, type WriterFigures } from '../analysis/sarcasm-writers.js';
import { trainHeads, type TrainingEnvelopes } from '../analysis/train-heads.js';
import { courtesyEnvelopes } from '../analysis/courtesy-envelope.js';
import { foldStratum, groupedStratifiedFolds, nearDuplicateGroups } from '../analysis/folds.js';
import { nearDuplicates } from '../analysis/near-duplicates.js';
import { wordFeatures } from '../analysis/word-features.js';
import { applyWordReader, trainWordReader } from '../analysis/word-reader.js';
import { featureNames, topNamed } from '../analysis/word-explain.js';
import { runHoldout, UNREAD_HALVES } from '../analysis/probe/holdout.js';
import { formatProbe, runProbe } from '../analysis/probe/runner.js';

/**
 * `npm run eval -- [labelled.jsonl] [--folds=5] [--repeats=3] [--seed=7] [--twins=together|apart] [--calibrate=off] [--stack-pieces=off]
 *  [--stack-words=off] [--priors=off] [--recommend-positive=off] [--scope=off]
 *  [--expectation=off] [--composition=off] [--learned-sarcasm=off] [--sarcasm-polarity=on|off] [--envelopes=on] [--intention-tolerance=0.01] [--churn-precision=0.75] [--epochs=8] [--l2=0.001] [--corpus=dir]
 *  [--reader=embedding|words] [--explain] [--probe=off] [--figures-without=v8,v7]`: honest figures for the analysis.
 *  1. Repeated stratified k-fold cross-validation on the training corpus: heads are trained on k-1
 *     folds (their own thresholds and calibration from an inner cross-validation of those folds:
 *     nested) and judged on the fold they never saw; folds are stratified by register, polarity and
 *     churn, and drawn anew for each repeat; near-duplicate lines (counterfactual twins) stay in one
 *     fold unless `--twins=apart`. Figures per label and per register.
 *  2. The labelled file (default: the dev set beside the checkout), judged by heads trained on the
 *     whole corpus, which holds none of its texts: the near-duplicate count (character 5-gram
 *     Jaccard >= 0.4, as .ci/run checks) between the two is printed and must be 0.
 *  3. The behavioural probe (src/analysis/probe: generated minimum-functionality, invariance and
 *     directional tests), read by the same model trained on the whole corpus: each capability's
 *     failure rate (`--probe=off` skips it; `npm run probe` runs it on the cached heads, with examples).
 * `--figures-without=<id prefixes>` also prints the pooled CV figures without the lines whose id
 * starts with one of them (trained on every line as before): when the corpus grows by harder lines,
 * the older lines' figures are the ones comparable with an earlier run on the same seeds.
 * The flags train variants of the heads, so each choice in heads.ts can be compared by CV:
 * the default is the stack the service runs; `--stack-words=off` the embedding reader alone;
 * `--reader=words` the word reader alone (word-reader.ts, labels over 0.5). `--explain` prints the
 * word reader's most weighted features per label, named from the corpus' texts.
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const folds = Number(flag('folds') ?? 5);
const repeats = Number(flag('repeats') ?? 3);
/** The folds of repeat r are drawn with seed + r: a new seed gives fresh folds, for figures on folds no choice was made on. */
const seed = Number(flag('seed') ?? 7);
/** Counterfactual twins in one fold (the default) or dealt apart (the folds of earlier figures). */
const twins = flag('twins') ?? 'together';
if (twins !== 'together' && twins !== 'apart') {
  console.error(`--twins must be together or apart (got ${twins})`);
  process.exit(2);
}
const options: HeadsOptions = {
  calibrate: flag('calibrate') ? flag('calibrate') !== 'off' : DEFAULT_HEADS_OPTIONS.calibrate,
  stackPieces: flag('stack-pieces') ? flag('stack-pieces') !== 'off' : DEFAULT_HEADS_OPTIONS.stackPieces,
  stackWords: flag('stack-words') ? flag('stack-words') !== 'off' : DEFAULT_HEADS_OPTIONS.stackWords,
  priors: flag('priors') ? flag('priors') !== 'off' : DEFAULT_HEADS_OPTIONS.priors,
  sentimentFromExpectation: flag('expectation')
    ? flag('expectation') !== 'off'
    : DEFAULT_HEADS_OPTIONS.sentimentFromExpectation,
  scope: flag('scope') ? flag('scope') !== 'off' : DEFAULT_HEADS_OPTIONS.scope,
  denialVeto: flag('denial-veto') ? flag('denial-veto') !== 'off' : DEFAULT_HEADS_OPTIONS.denialVeto,
  composition: flag('composition') ? flag('composition') !== 'off' : DEFAULT_HEADS_OPTIONS.composition,
  learnedSarcasm: flag('learned-sarcasm') ? flag('learned-sarcasm') !== 'off' : DEFAULT_HEADS_OPTIONS.learnedSarcasm,
  sarcasmSetPolarity: flag('sarcasm-polarity')
    ? flag('sarcasm-polarity') !== 'off'
    : DEFAULT_HEADS_OPTIONS.sarcasmSetPolarity,
  courtesyEnvelopes: flag('envelopes') ? flag('envelopes') !== 'off' : DEFAULT_HEADS_OPTIONS.courtesyEnvelopes,
  recommendNeedsPositive: flag('recommend-positive')
    ? flag('recommend-positive') !== 'off'
    : DEFAULT_HEADS_OPTIONS.recommendNeedsPositive,
  intentionTolerance: Number(flag('intention-tolerance') ?? DEFAULT_HEADS_OPTIONS.intentionTolerance),
  churnPrecision: Number(flag('churn-precision') ?? DEFAULT_HEADS_OPTIONS.churnPrecision),
  epochs: Number(flag('epochs') ?? DEFAULT_HEADS_OPTIONS.epochs),
  l2: Number(flag('l2') ?? DEFAULT_HEADS_OPTIONS.l2),
};
/** `embedding` (default): the trained heads the service runs; `words`: the second reader alone (word-reader.ts). */
const reader = flag('reader') ?? 'embedding';
const unknown = args.filter(
  (a) =>
    a.startsWith('--') &&
    a !== '--explain' &&
    !/^--(folds|repeats|calibrate|stack-pieces|stack-words|priors|expectation|recommend-positive|scope|denial-veto|composition|learned-sarcasm|sarcasm-polarity|envelopes|intention-tolerance|seed|twins|churn-precision|epochs|l2|corpus|reader|probe|figures-without)=/.test(
      a,
    ),
);
if (reader !== 'embedding' && reader !== 'words') {
  console.error(`--reader must be embedding or words (got ${reader})`);
  process.exit(2);
}
if (unknown.length > 0) {
  console.error(`unknown flag ${unknown.join(' ')} (see src/bin/eval.ts)`);
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const file = args.find((a) => !a.startsWith('--')) ?? path.resolve(here, '../../../shared/eval/dev.jsonl');

const corpus = loadCorpus(flag('corpus'));
// Checked before the hour of cross-validation: a prefix that names no line would print the whole
// corpus' figures under another name.
const without = flag('figures-without')?.split(',').filter(Boolean) ?? [];
const unmatched = without.filter((p) => !corpus.items.some((it) => it.id.startsWith(p)));
if (unmatched.length > 0) {
  console.error(`--figures-without: no corpus line has an id starting with ${unmatched.join(', ')}`);
  process.exit(2);
}
const evalItems = parseLabelled(readFileSync(file, 'utf8'), file);
const duplicates = nearDuplicates(
  corpus.items.map((it) => it.text),
  evalItems.map((it) => it.text),
  0.4,
);

// Vectors are cached between runs in the OS temp folder (the same model gives the same vectors):
// comparing variants of the heads then costs training time only.
const local = createLocalEmbedder();
const cacheFile = path.join(os.tmpdir(), `eval-vectors-${local.name.replace(/\W+/g, '-')}.json`);
const cache = new Map<string, number[]>(existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : []);
const embedder: Embedder = {
  name: local.name,
  dimensions: local.dimensions,
  async embed(texts) {
    const missing = [...new Set(texts.filter((x) => !cache.has(x)))];
    if (missing.length) (await local.embed(missing)).forEach((v, i) => cache.set(missing[i], v));
    return texts.map((x) => cache.get(x)!);
  },
};
let t = Date.now();
// The word reader needs no vectors.
const encode = (texts: string[]) =>
  reader === 'embedding'
    ? encodeTexts(embedder, texts, undefined, { pieces: options.stackPieces })
    : Promise.resolve([]);
const corpusEncoded = await encode(corpus.items.map((it) => it.text));
const sarcasmEncoded = await encode(corpus.sarcasm.map((ex) => ex.text));
// Courtesy envelopes of the corpus' lines, embedded once; each fold trains on its own lines' copies.
const envelopes = options.courtesyEnvelopes && reader === 'embedding' ? courtesyEnvelopes(corpus.items) : [];
const envelopesEncoded = await encode(envelopes.map((e) => e.text));
/** The envelopes of these corpus lines, their parents renumbered as positions in `idx`. */
function envelopesOf(idx: number[]): TrainingEnvelopes {
  const at = new Map(idx.map((i, k) => [i, k]));
  const kept = envelopes.flatMap((e, j) => (at.has(e.parent) ? [j] : []));
  return {
    parent: kept.map((j) => at.get(envelopes[j].parent)!),
    texts: kept.map((j) => envelopes[j].text),
    encoded: kept.map((j) => envelopesEncoded[j]),
  };
}
const evalEncoded = await encode(evalItems.map((it) => it.text));
// Texts embedded: short messages whole, long ones as their pieces.
const embeddedTexts = [...corpusEncoded, ...evalEncoded].reduce((n, e) => n + Math.max(1, e.pieces.length), 0);
const embeddedSeconds = (Date.now() - t) / 1000;
writeFileSync(cacheFile, JSON.stringify([...cache]));

const f = (x: number) => x.toFixed(3);
const row = (label: string, m: Prf) =>
  `  ${label.padEnd(16)} P ${f(m.precision)}  R ${f(m.recall)}  F1 ${f(m.f1)}  (n=${m.support})`;
function report(title: string, items: LabelledText[], predictions: Predicted[]) {
  const r = evaluate(items, predictions, TOPICS, INTENTIONS);
  const c = polarityConfusion(items, predictions);
  console.log(`\n== ${title} (${r.n} predictions)`);
  console.log(`sentiment polarity accuracy: ${f(r.polarityAccuracy)}   sentiment MAE: ${f(r.sentimentMae)}`);
  console.log(
    `topic micro-F1: ${f(r.topics.micro.f1)} (P ${f(r.topics.micro.precision)}, R ${f(r.topics.micro.recall)})`,
  );
  console.log(
    `intention micro-F1: ${f(r.intentions.micro.f1)} (P ${f(r.intentions.micro.precision)}, R ${f(r.intentions.micro.recall)})`,
  );
  console.log(`churn precision: ${f(r.churn.precision)}   churn recall: ${f(r.churn.recall)}`);
  console.log('polarity confusion (rows gold, columns predicted: negative neutral positive):');
  ['negative', 'neutral', 'positive'].forEach((p, i) =>
    console.log(`  ${p.padEnd(9)} ${c[i].map((v) => String(v).padStart(5)).join('')}`),
  );
  console.log('topics:');
  for (const [label, m] of Object.entries(r.topics.per)) console.log(row(label, m));
  console.log('intentions:');
  for (const [label, m] of Object.entries(r.intentions.per)) console.log(row(label, m));
  return r;
}

console.log(
  `corpus: ${corpus.items.length} messages in ${corpus.files.length} files (${corpus.hash.slice(0, 12)}); embedder ${embedder.name}; ${corpus.items.length + evalItems.length} messages embedded as ${embeddedTexts} texts (${options.stackPieces ? 'short ones whole, long ones by sentence' : 'each message whole'}) in ${embeddedSeconds.toFixed(1)} s (vectors cached in ${cacheFile})`,
);
{
  const words = corpus.items.map((it) => it.text.split(/\s+/).filter(Boolean).length);
  const share = (n: number) => `${((100 * n) / corpus.items.length).toFixed(1)}%`;
  const perRegister = REGISTERS.map((r) => `${r} ${corpus.items.filter((it) => it.register === r).length}`);
  console.log(
    `corpus shape: mean ${(words.reduce((a, b) => a + b, 0) / words.length).toFixed(1)} words, ${share(words.filter((w) => w > 40).length)} over 40 words, ${share(corpus.items.filter((it) => it.intentions.length >= 2).length)} with 2+ intentions, ${share(corpus.items.filter((it) => Math.abs(it.sentiment) === 0.2).length)} at exactly ±0.2; registers: ${perRegister.join(', ')}`,
  );
}
console.log(reader === 'words' ? 'reader: words (word-reader.ts)' : `heads: ${JSON.stringify(options)}`);
console.log(
  `evaluation file: ${file} (${evalItems.length} messages); near-duplicates with the corpus (char 5-gram Jaccard >= 0.4): ${duplicates.length}${duplicates.length ? ` (corpus ids: ${duplicates.map(([i]) => corpus.items[i].id).join(', ')})` : ''}`,
);

// Stratified folds: items of one stratum are dealt round-robin after a seeded shuffle; with
// --twins=together (the default) a group of near-duplicates (counterfactual twins) goes to one fold
// whole (folds.ts). --twins=apart deals every line alone: the folds of the figures before
// 2026-12-06, drawn exactly as then for the same seed.
const twinGroups =
  twins === 'apart' ? corpus.items.map((_, i) => [i]) : nearDuplicateGroups(corpus.items.map((it) => it.text));
function stratifiedFolds(items: LabelledText[], seed: number): number[] {
  return groupedStratifiedFolds(twinGroups, items.length, folds, seed, (i) => foldStratum(items[i]));
}
console.log(
  `folds: ${twins === 'apart' ? 'every line alone (--twins=apart)' : `near-duplicates (char 5-gram Jaccard >= 0.4) kept in one fold: ${twinGroups.filter((g) => g.length > 1).length} groups of 2+ lines`}`,
);

/** Reads item `i` of the corpus or of the evaluation file; `readTexts` reads any texts (the probe's). */
type Judge = ((set: 'corpus' | 'eval', i: number) => Predicted) & {
  readTexts(texts: string[]): Promise<Predicted[]>;
  /** The same heads with the composition rules and the learned sarcasm detector off: what they change, on the same folds. */
  withoutComposition?: (i: number) => Predicted;
  /** The trained heads (not for the word reader alone). */
  heads?: Heads;
};
/** Trains the chosen reader on these corpus items. */
async function trainJudge(idx: number[]): Promise<Judge> {
  if (reader === 'words') {
    const words = await trainWordReader(
      idx.map((i) => corpus.items[i]),
      idx.map((i) => corpusRows[i]),
    );
    return Object.assign(
      (set: 'corpus' | 'eval', i: number) =>
        set === 'corpus'
          ? applyWordReader(words, corpus.items[i].text, corpusRows[i])
          : applyWordReader(words, evalItems[i].text),
      { readTexts: async (texts: string[]) => texts.map((x) => applyWordReader(words, x)) },
    );
  }
  const heads = await trainHeads({
    embedder: embedder.name,
    corpusHash: idx.length === corpus.items.length ? corpus.hash : 'fold',
    items: idx.map((i) => corpus.items[i]),
    encoded: idx.map((i) => corpusEncoded[i]),
    wordRows: idx.map((i) => corpusRows[i]),
    options,
    // The sarcasm set is no corpus line: it trains every fold's detector, and no fold judges it.
    sarcasm: { examples: corpus.sarcasm, encoded: sarcasmEncoded, sarcasticIds: corpus.sarcasticIds },
    envelopes: envelopesOf(idx),
  });
  const off = { ...heads, options: { ...heads.options, composition: false, learnedSarcasm: false } };
  return Object.assign(
    (set: 'corpus' | 'eval', i: number) =>
      set === 'corpus'
        ? applyHeads(heads, corpusEncoded[i], corpus.items[i].text, corpusRows[i])
        : applyHeads(heads, evalEncoded[i], evalItems[i].text),
    {
      heads,
      withoutComposition: options.composition
        ? (i: number) => applyHeads(off, corpusEncoded[i], corpus.items[i].text, corpusRows[i])
        : undefined,
      async readTexts(texts: string[]) {
        const encoded = await encode(texts);
        return texts.map((x, k) => applyHeads(heads, encoded[k], x));
      },
    },
  );
}
/** The word reader's rows of the corpus, made once for every fold. */
const corpusRows = corpus.items.map((it) => wordFeatures(it.text));

t = Date.now();
const cvItems: LabelledText[] = [];
const cvPredictions: Predicted[] = [];
const cvWithout: Predicted[] = [];
const perRepeat: { polarity: number; topics: number; intentions: number; churnP: number; churnR: number }[] = [];
for (let r = 0; r < repeats; r++) {
  const fold = stratifiedFolds(corpus.items, seed + r);
  const predictions: Predicted[] = new Array(corpus.items.length);
  const without: Predicted[] = new Array(corpus.items.length);
  for (let k = 0; k < folds; k++) {
    const idx = corpus.items.map((_, i) => i).filter((i) => fold[i] !== k);
    const judge = await trainJudge(idx);
    corpus.items.forEach((it, i) => {
      if (fold[i] !== k) return;
      predictions[i] = judge('corpus', i);
      if (judge.withoutComposition) without[i] = judge.withoutComposition(i);
    });
  }
  if (options.composition && reader === 'embedding') cvWithout.push(...without);
  const m = evaluate(corpus.items, predictions, TOPICS, INTENTIONS);
  perRepeat.push({
    polarity: m.polarityAccuracy,
    topics: m.topics.micro.f1,
    intentions: m.intentions.micro.f1,
    churnP: m.churn.precision,
    churnR: m.churn.recall,
  });
  cvItems.push(...corpus.items);
  cvPredictions.push(...predictions);
}
const cvReport = report(
  `${repeats} x ${folds}-fold stratified cross-validation on the training corpus, ${reader === 'words' ? 'labels over 0.5' : 'nested thresholds'} (${((Date.now() - t) / 1000).toFixed(1)} s), pooled over the repeats`,
  cvItems,
  cvPredictions,
);
if (cvWithout.length === cvPredictions.length && cvWithout.length > 0) {
  // The rules run after the stack, so the same folds give the readings without them for free.
  const gold = cvItems.map((it) => polarity(it.sentiment));
  let toGold = 0;
  let fromGold = 0;
  let other = 0;
  cvPredictions.forEach((p, i) => {
    const [a, b] = [polarity(cvWithout[i].sentiment), polarity(p.sentiment)];
    if (a === b) return;
    if (b === gold[i]) toGold++;
    else if (a === gold[i]) fromGold++;
    else other++;
  });
  const w = evaluate(cvItems, cvWithout, TOPICS, INTENTIONS);
  console.log(
    `composition rules (composition.ts) and the learned sarcasm detector, same folds: polarity ${f(cvReport.polarityAccuracy)} with, ${f(w.polarityAccuracy)} without; MAE ${f(cvReport.sentimentMae)} with, ${f(w.sentimentMae)} without; ${toGold + fromGold + other} classes changed: ${toGold} to the gold class, ${fromGold} away from it, ${other} between two wrong ones`,
  );
}
/** The pooled CV figures of the lines that `keep` admits, and their indices. */
const cvFiguresOf = (keep: (it: LabelledText) => boolean) => {
  const idx = cvItems.map((it, i) => (keep(it) ? i : -1)).filter((i) => i >= 0);
  const m = evaluate(
    idx.map((i) => cvItems[i]),
    idx.map((i) => cvPredictions[i]),
    TOPICS,
    INTENTIONS,
  );
  return { idx, m };
};
if (without.length > 0) {
  const { idx, m } = cvFiguresOf((it) => !without.some((p) => it.id.startsWith(p)));
  console.log(
    `without the lines of ids ${without.join(', ')}* (${idx.length / repeats} lines, pooled over the repeats): polarity ${f(m.polarityAccuracy)}, MAE ${f(m.sentimentMae)}, topic F1 ${f(m.topics.micro.f1)}, intention F1 ${f(m.intentions.micro.f1)} (P ${f(m.intentions.micro.precision)}, R ${f(m.intentions.micro.recall)}), churn P ${f(m.churn.precision)} R ${f(m.churn.recall)}`,
  );
}
const spread = (pick: (x: (typeof perRepeat)[number]) => number) =>
  `${f(Math.min(...perRepeat.map(pick)))}–${f(Math.max(...perRepeat.map(pick)))}`;
console.log(
  `per repeat (min–max): polarity ${spread((x) => x.polarity)}, topic F1 ${spread((x) => x.topics)}, intention F1 ${spread((x) => x.intentions)}, churn P ${spread((x) => x.churnP)} R ${spread((x) => x.churnR)}`,
);
console.log('per register (pooled over the repeats):');
console.log(`  ${'register'.padEnd(9)} ${'n'.padStart(5)}  polarity  MAE    topicF1  intentF1  churnP  churnR`);
for (const reg of REGISTERS) {
  const { idx, m } = cvFiguresOf((it) => it.register === reg);
  if (idx.length === 0) continue;
  console.log(
    `  ${reg.padEnd(9)} ${String(idx.length / repeats).padStart(5)}  ${f(m.polarityAccuracy)}     ${f(m.sentimentMae)}  ${f(m.topics.micro.f1)}    ${f(m.intentions.micro.f1)}     ${m.churn.support ? f(m.churn.precision) : '  -  '}   ${m.churn.support ? f(m.churn.recall) : '  -'}`,
  );
}

t = Date.now();
const judge = await trainJudge(corpus.items.map((_, i) => i));
const trainedMs = Date.now() - t;
const devReport = report(
  `${path.basename(file)}: a read-only check, ${reader === 'words' ? 'the word reader' : 'heads'} trained on the whole corpus (without it) in ${(trainedMs / 1000).toFixed(1)} s`,
  evalItems,
  evalItems.map((_, i) => judge('eval', i)),
);

console.log('\n== side by side');
console.log('                                polarity  MAE    topic F1  intention F1  churn P / R');
for (const [name, r] of [
  [`corpus, ${repeats} x ${folds}-fold CV`, cvReport],
  [`${path.basename(file)}, trained without it`, devReport],
] as const)
  console.log(
    `  ${name.padEnd(30)}${f(r.polarityAccuracy)}     ${f(r.sentimentMae)}  ${f(r.topics.micro.f1)}     ${f(r.intentions.micro.f1)}         ${f(r.churn.precision)} / ${f(r.churn.recall)}`,
  );
if (judge.heads?.options.learnedSarcasm && corpus.sarcasm.length > 0) {
  // The learned sarcasm detector on writers it never met (sarcasm-writers.ts).
  t = Date.now();
  const figures = await sarcasmByWriter({
    heads: judge.heads,
    examples: corpus.sarcasm,
    encoded: sarcasmEncoded,
    items: corpus.items,
    itemsEncoded: corpusEncoded,
    sarcasticIds: corpus.sarcasticIds,
    envelopes: envelopesOf(corpus.items.map((_, i) => i)),
  });
  console.log(
    '\n== the learned sarcasm detector, leave one writer of data/sarcasm out (heads of the whole corpus; the detector, and with --sarcasm-polarity the polarity of both readers, trained without the writer)',
  );
  console.log(
    '  writer            sarcastic  read positive: without  with   polite complaints  read positive: without  with   sincere  read other than positive: without  with   neutral  read negative: without  with',
  );
  const counts = [
    'sarcastic',
    'sarcasticPositiveBefore',
    'sarcasticPositiveAfter',
    'polite',
    'politePositiveBefore',
    'politePositiveAfter',
    'sincere',
    'sincereMissedBefore',
    'sincereMissedAfter',
    'neutral',
    'neutralNegativeBefore',
    'neutralNegativeAfter',
  ] as const;
  const sum = (k: (typeof counts)[number]) => figures.reduce((n, w) => n + w[k], 0);
  const all = { writer: 'all', threshold: figures[0].threshold, ...Object.fromEntries(counts.map((k) => [k, sum(k)])) };
  const widths = [9, 22, 4, 17, 22, 4, 7, 33, 4, 7, 22, 4];
  for (const w of [...figures, all as WriterFigures])
    console.log(`  ${w.writer.padEnd(17)} ${counts.map((k, j) => String(w[k]).padStart(widths[j])).join('  ')}`);
  console.log(`  (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
if (flag('probe') !== 'off') {
  // The same model as the dev line: every capability's failure rate, beside the figures above.
  t = Date.now();
  const probe = await runProbe(judge.readTexts);
  console.log(
    `\n== ${formatProbe(probe)}\n  (${reader === 'words' ? 'the word reader' : 'heads'} trained on the whole corpus; ${((Date.now() - t) / 1000).toFixed(1)} s)`,
  );
  // Every never-read set of held-out sentences (probe/holdout.ts): templates nobody here wrote.
  // Rates only: their failing sentences are never shown.
  for (const half of UNREAD_HALVES) {
    const held = await runHoldout(judge.readTexts, half);
    console.log(`\n== held-out sentences, ${half} (data/probe-holdout/${half}.jsonl)\n${formatProbe(held)}`);
  }
}
if (args.includes('--explain')) {
  // The word reader trained on the whole corpus, as the service's heads hold it.
  const words = await trainWordReader(corpus.items, corpusRows);
  const names = featureNames(corpus.items.map((it) => it.text));
  const show = (title: string, labels: readonly string[], model: Parameters<typeof topNamed>[0]) => {
    console.log(`\n== the word reader's most weighted features: ${title}`);
    labels.forEach((label, o) =>
      console.log(
        `  ${label.padEnd(16)} ${topNamed(model, o, names, 8)
          .map((x) => `${x.name} ${x.weight.toFixed(2)}`)
          .join(' · ')}`,
      ),
    );
  };
  show('polarity', ['negative', 'neutral', 'positive'], words.polarity);
  show('topics', TOPICS, words.topics);
  show('intentions', INTENTIONS, words.intentions);
}

// A near-duplicate between the corpus and the evaluation file fails the command: the corpus line
// (named at the top) must go.
process.exit(duplicates.length > 0 ? 1 : 0);
