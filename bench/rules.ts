import { compositionVerdict } from '../src/analysis/composition.js';
import { loadCorpus } from '../src/analysis/corpus.js';
import { saysLeaving, saysStaying, scopeCounts } from '../src/analysis/intent-scope.js';
import { MAX_TEXT_LENGTH } from '../src/ingest/validate-batch.js';
import { createLocalEmbedder } from '../src/analysis/embedder.js';
import { readEntryFile, shippedHeadsFile } from '../src/analysis/heads-store.js';
import { normalizeText } from '../src/analysis/normalize.js';
import { lexiconPriors } from '../src/analysis/priors.js';
import { sarcasmProbability } from '../src/analysis/sarcasm-detector.js';
import { wordFeatures } from '../src/analysis/word-features.js';

/**
 * `npm run bench -- --only=rules`: what the composition rules and the intention scope cost on the
 * worker's main thread, per message: on 500 corpus messages, and on texts at the api's length limit
 * shaped against the patterns (one endless word, a negator repeated, a request repeated, quotes,
 * failures), whose worst case a tenant controls.
 */
const HOSTILE: [string, string][] = [
  ['one 10,000-letter word', 'a'.repeat(MAX_TEXT_LENGTH)],
  ['"not " repeated', 'not '.repeat(MAX_TEXT_LENGTH / 4)],
  ['a request with a failure, repeated', 'Hi, could you look into it? My parcel never arrived, thanks! '.repeat(170)],
  ['quotes repeated', '"a" '.repeat(MAX_TEXT_LENGTH / 4)],
  ['"great, " repeated', 'great, '.repeat(MAX_TEXT_LENGTH / 7)],
  ['"we never ordered " repeated', 'we never ordered '.repeat(MAX_TEXT_LENGTH / 17)],
  ['"bye bye " repeated', 'bye bye '.repeat(MAX_TEXT_LENGTH / 8)],
  ['questions repeated', 'a? '.repeat(MAX_TEXT_LENGTH / 3)],
];
// The veto's wide count runs only for a message with a label to veto; here for every message, as
// the worst case. The question marks repeated stress its search for the answer after a question.
const read = (text: string) => {
  compositionVerdict(text);
  scopeCounts(text);
  saysLeaving(text);
  saysStaying(text, scopeCounts(text, { wide: true }));
};

/** One call on each text cut at the api's length limit, timed. */
function atTheLimit(what: string, texts: [string, string][], run: (text: string) => unknown, log: (m: string) => void) {
  return texts.map(([name, text]) => {
    const t = performance.now();
    run(text.slice(0, MAX_TEXT_LENGTH));
    const ms = performance.now() - t;
    log(`${what} on ${name}: ${ms.toFixed(1)} ms`);
    return { name, ms };
  });
}

export function benchRules(opts: { quick: boolean; log: (m: string) => void }) {
  const texts = loadCorpus()
    .items.slice(0, 500)
    .map((i) => i.text);
  const repeats = opts.quick ? 3 : 5;
  const perMessage: number[] = [];
  for (let r = 0; r < repeats + 1; r++) {
    const t = performance.now();
    texts.forEach(read);
    if (r > 0) perMessage.push(((performance.now() - t) * 1000) / texts.length); // the first warms up
  }
  const hostile = atTheLimit('rules', HOSTILE, read, opts.log);
  return {
    perMessageMicros: perMessage,
    hostile,
    sarcasmMicros: benchSarcasm(texts, repeats),
    ...benchNormalise(texts, repeats, opts.log),
  };
}

/** Texts at the length limit against the chat spelling's mendings (normalize.ts spellOut). */
const HOSTILE_SPELLING: [string, string][] = [
  // Each unknown word distinct, so none is mended from the message's memo.
  [
    'common words and distinct unknown seven-letter ones',
    Array.from(
      { length: 1000 },
      (_, i) => `the qwe${String.fromCharCode(97 + (i % 26), 97 + (Math.floor(i / 26) % 26))}rz`,
    ).join(' '),
  ],
  ['typos repeated', 'the app is definitly brokn and the suport is awfull '.repeat(200)],
  ['chat forms repeated', 'u r gr8 tbh cuz idk pls thx im done '.repeat(300)],
  ['one 10,000-letter word', 'the ' + 'b'.repeat(MAX_TEXT_LENGTH)],
];

/**
 * The normaliser (normalize.ts) per message, chat spelling included, after one call has read its
 * word lists; and at its worst on texts at the api's length limit.
 */
function benchNormalise(texts: string[], repeats: number, log: (m: string) => void) {
  normalizeText('the app is brokn, thx');
  const normaliseMicros: number[] = [];
  for (let r = 0; r < repeats + 1; r++) {
    const t = performance.now();
    texts.forEach(normalizeText);
    if (r > 0) normaliseMicros.push(((performance.now() - t) * 1000) / texts.length);
  }
  const normaliseHostile = atTheLimit('normaliser', HOSTILE_SPELLING, normalizeText, log);
  return { normaliseMicros, normaliseHostile };
}

/**
 * The learned sarcasm detector's own work per message (a dense row and a sparse row through the
 * shipped heads' detector), its inputs made beforehand as the heads make them anyway (the
 * embedding row, the priors, the word row). The embedding row's values do not change the cost.
 */
function benchSarcasm(texts: string[], repeats: number): number[] {
  const local = createLocalEmbedder();
  const file = shippedHeadsFile(local.name);
  const corpus = loadCorpus();
  const heads = file ? readEntryFile(file, local.name, corpus.hash) : undefined;
  if (!heads || typeof heads !== 'object' || !heads.sarcasm) return [];
  const detector = heads.sarcasm;
  const x = Array.from({ length: heads.mean.length }, (_, k) => Math.sin(k));
  const inputs = texts.map((t) => ({ priors: lexiconPriors(normalizeText(t)), row: wordFeatures(t) }));
  const micros: number[] = [];
  for (let r = 0; r < repeats + 1; r++) {
    const t = performance.now();
    for (const i of inputs) sarcasmProbability(detector, x, i.priors, i.row);
    if (r > 0) micros.push(((performance.now() - t) * 1000) / inputs.length);
  }
  return micros;
}
