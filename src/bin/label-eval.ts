import { createLocalEmbedder } from '../analysis/embedder.js';
import { evaluateLabels, type LabelEvalSet } from '../labels/label-eval.js';

/**
 * `npm run label-eval -- [--set=dev|test]`: custom labels taught from 10 + 10 examples on the local
 * model and judged on 40 texts each they were not taught with (src/labels/label-eval.ts).
 */
const set = (process.argv.find((a) => a.startsWith('--set='))?.slice(6) ?? 'dev') as LabelEvalSet;
if (!['dev', 'test'].includes(set)) {
  console.error(`--set must be dev or test (got ${set})`);
  process.exit(2);
}
const scores = await evaluateLabels(createLocalEmbedder(), set);
const mean = (f: (s: (typeof scores)[number]) => number) => scores.reduce((a, s) => a + f(s), 0) / scores.length;
console.log(
  `custom labels, data/labels-eval/${set}.jsonl: ${scores.length} labels, 10 + 10 examples each, 40 texts judged each`,
);
console.log('  label                        F1     P      R   near misses matched  baseline F1  reported (CV) F1');
for (const s of scores) {
  console.log(
    `  ${s.name.padEnd(26)} ${s.f1.toFixed(3)}  ${s.precision.toFixed(2)}  ${s.recall.toFixed(2)}  ${String(s.nearMissesMatched).padStart(6)} of 12        ${s.baselineF1.toFixed(3)}        ${s.reportedF1.toFixed(3)}`,
  );
}
console.log(
  `  mean F1 ${mean((s) => s.f1).toFixed(3)} (lowest ${Math.min(...scores.map((s) => s.f1)).toFixed(3)}); ` +
    `baseline ${mean((s) => s.baselineF1).toFixed(3)} (lowest ${Math.min(...scores.map((s) => s.baselineF1)).toFixed(3)})`,
);
process.exit(0);
