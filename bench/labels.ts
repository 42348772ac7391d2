import { createLocalEmbedder } from '../src/analysis/embedder.js';
import { wordFeatures } from '../src/analysis/word-features.js';
import { loadCorpus } from '../src/analysis/corpus.js';
import { trainLabel, type LabelExample } from '../src/labels/label-model.js';
import { loadLabelEval } from '../src/labels/label-eval.js';
import { labelMatcher } from '../src/labels/ready-labels.js';

/**
 * `npm run bench -- --only=labels`: what custom labels cost on the local model, without a stack
 * (issue 47): a training of 20 and of 200 examples (their embedding call and the 5 + 1 fits), and
 * the time 10 ready labels add to each analysed message (scoring only: the vector is the analysis').
 */
export async function benchLabels(opts: { quick: boolean; log: (m: string) => void }) {
  const embedder = createLocalEmbedder();
  const sets = loadLabelEval('dev');
  // 200 examples: the dev set's labels' examples and test texts pooled, matching by label 0.
  const pooled: LabelExample[] = sets.flatMap((l, k) =>
    [...l.train, ...l.test].map((e) => ({ text: e.text, match: k === 0 ? e.match : false })),
  );
  const big = [...pooled.filter((e) => e.match), ...pooled.filter((e) => !e.match)].slice(0, 200);
  const repeats = opts.quick ? 3 : 5;
  const training: Record<string, number[]> = { 20: [], 200: [] };
  for (const [n, examples] of [
    [20, sets[0].train],
    [200, big],
  ] as const) {
    for (let r = 0; r < repeats + 1; r++) {
      const t = performance.now();
      const vectors = await embedder.embed(examples.map((e) => e.text));
      await trainLabel(embedder.name, vectors, examples);
      if (r > 0) training[n].push(performance.now() - t); // the first warms the model up
    }
    opts.log(`label training, ${n} examples: ${training[n].map((ms) => ms.toFixed(0)).join(', ')} ms`);
  }
  // 10 ready labels, as a chunk's matcher holds them, on 500 corpus messages.
  const models: { name: string; model: Awaited<ReturnType<typeof trainLabel>>['model'] }[] = [];
  for (const l of sets.slice(0, 10)) {
    const vectors = await embedder.embed(l.train.map((e) => e.text));
    models.push({ name: l.name, model: (await trainLabel(embedder.name, vectors, l.train)).model });
  }
  const match = labelMatcher(models);
  const texts = loadCorpus()
    .items.slice(0, 500)
    .map((i) => i.text);
  const vectors = await embedder.embed(texts);
  const perMessage: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    texts.forEach((text, i) => match(vectors[i], text));
    perMessage.push(((performance.now() - t) * 1000) / texts.length);
  }
  // For scale: the word features alone (one pass over the words), which the scoring includes.
  const t = performance.now();
  for (const text of texts) wordFeatures(text);
  const wordsOnly = ((performance.now() - t) * 1000) / texts.length;
  return {
    training,
    perMessageMicros: perMessage,
    wordsOnlyMicros: wordsOnly,
    examples: { small: 20, big: big.length },
  };
}
