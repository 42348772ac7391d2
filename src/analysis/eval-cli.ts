import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAnalyzer, INTENTIONS, TOPICS } from './analyze.js';
import { createLocalEmbedder } from './embedder.js';
import { evaluate, type Labelled, type Prf } from './eval.js';

// `npm run eval -- [file.jsonl]`: the analysis against a labelled file (default: the dev set).
const file = process.argv[2] ?? path.resolve('../shared/eval/dev.jsonl');
const items: Labelled[] = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

const embedder = createLocalEmbedder();
let t = Date.now();
const analyzer = await createAnalyzer(embedder);
const loadMs = Date.now() - t;
const predictions = [];
t = Date.now();
for (let i = 0; i < items.length; i += 50) predictions.push(...(await analyzer.analyzeBatch(items.slice(i, i + 50).map((x) => x.text))));
const perSecond = items.length / ((Date.now() - t) / 1000);
const r = evaluate(items, predictions, TOPICS, INTENTIONS);

const f = (x: number) => x.toFixed(3);
const row = (label: string, m: Prf) => `  ${label.padEnd(16)} P ${f(m.precision)}  R ${f(m.recall)}  F1 ${f(m.f1)}  (n=${m.support})`;
console.log(`file: ${file} (${r.n} messages)`);
console.log(`sentiment polarity accuracy: ${f(r.polarityAccuracy)}   sentiment MAE: ${f(r.sentimentMae)}`);
console.log(`topic micro-F1: ${f(r.topics.micro.f1)} (P ${f(r.topics.micro.precision)}, R ${f(r.topics.micro.recall)})`);
console.log(`intention micro-F1: ${f(r.intentions.micro.f1)} (P ${f(r.intentions.micro.precision)}, R ${f(r.intentions.micro.recall)})`);
console.log(`churn precision: ${f(r.churn.precision)}   churn recall: ${f(r.churn.recall)}`);
console.log('topics:');
for (const [label, m] of Object.entries(r.topics.per)) console.log(row(label, m));
console.log('intentions:');
for (const [label, m] of Object.entries(r.intentions.per)) console.log(row(label, m));
console.log(`embedder: ${embedder.name}; analyzer ready in ${loadMs} ms (model + prototypes); ${perSecond.toFixed(1)} messages/s in batches of 50`);
