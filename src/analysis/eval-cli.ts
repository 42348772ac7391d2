import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INTENTIONS, TOPICS } from './analyze.js';
import { loadCorpus, parseLabelled, type LabelledText } from './corpus.js';
import { createLocalEmbedder } from './embedder.js';
import { evaluate, polarityConfusion, type Predicted, type Prf } from './eval.js';
import { applyHeads, trainHeads } from './heads.js';
import { seededRandom, shuffled } from './linear.js';

/**
 * `npm run eval -- [labelled.jsonl] [--folds=5]`: honest figures for the analysis.
 *  1. k-fold cross-validation on the training corpus: heads (thresholds included) are trained on
 *     k-1 folds and judged on the one they never saw.
 *  2. The labelled file (default: the dev set beside the checkout), judged by heads trained on the
 *     whole corpus, which holds no text of that file.
 */
const args = process.argv.slice(2);
const folds = Number(args.find((a) => a.startsWith('--folds='))?.slice(8) ?? 5);
const here = path.dirname(fileURLToPath(import.meta.url));
const file = args.find((a) => !a.startsWith('--')) ?? path.resolve(here, '../../../shared/eval/dev.jsonl');

const corpus = loadCorpus();
const evalItems = parseLabelled(readFileSync(file, 'utf8'), file);
const known = new Set(corpus.items.map((it) => it.text.trim().toLowerCase()));
const overlap = evalItems.filter((it) => known.has(it.text.trim().toLowerCase())).length;

const embedder = createLocalEmbedder();
let t = Date.now();
const corpusVectors = await embedder.embed(corpus.items.map((it) => it.text));
const evalVectors = await embedder.embed(evalItems.map((it) => it.text));
const perSecond = (corpus.items.length + evalItems.length) / ((Date.now() - t) / 1000);

const f = (x: number) => x.toFixed(3);
const row = (label: string, m: Prf) =>
  `  ${label.padEnd(16)} P ${f(m.precision)}  R ${f(m.recall)}  F1 ${f(m.f1)}  (n=${m.support})`;
function report(title: string, items: LabelledText[], predictions: Predicted[]) {
  const r = evaluate(items, predictions, TOPICS, INTENTIONS);
  const c = polarityConfusion(items, predictions);
  console.log(`\n== ${title} (${r.n} messages)`);
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
}

console.log(
  `corpus: ${corpus.items.length} messages in ${corpus.files.length} files (${corpus.hash.slice(0, 12)}); embedder ${embedder.name}, ${perSecond.toFixed(1)} texts/s`,
);
console.log(`evaluation file: ${file} (${evalItems.length} messages, ${overlap} of them also in the corpus)`);

t = Date.now();
const fold = new Array<number>(corpus.items.length);
shuffled(corpus.items.length, seededRandom(7)).forEach((i, k) => (fold[i] = k % folds));
const cv: Predicted[] = new Array(corpus.items.length);
for (let k = 0; k < folds; k++) {
  const idx = corpus.items.map((_, i) => i).filter((i) => fold[i] !== k);
  const heads = await trainHeads({
    embedder: embedder.name,
    corpusHash: 'fold',
    items: idx.map((i) => corpus.items[i]),
    vectors: idx.map((i) => corpusVectors[i]),
  });
  corpus.items.forEach((it, i) => {
    if (fold[i] === k) cv[i] = applyHeads(heads, corpusVectors[i], it.text);
  });
}
report(
  `${folds}-fold cross-validation on the training corpus (${((Date.now() - t) / 1000).toFixed(1)} s)`,
  corpus.items,
  cv,
);

t = Date.now();
const heads = await trainHeads({
  embedder: embedder.name,
  corpusHash: corpus.hash,
  items: corpus.items,
  vectors: corpusVectors,
});
const trainedMs = Date.now() - t;
report(
  `${path.basename(file)}, heads trained on the whole corpus in ${(trainedMs / 1000).toFixed(1)} s`,
  evalItems,
  evalItems.map((it, i) => applyHeads(heads, evalVectors[i], it.text)),
);
process.exit(0);
