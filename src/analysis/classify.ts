import { INTENTION_EXAMPLES, SENTIMENT_EXAMPLES, TOPIC_EXAMPLES } from './prototypes.js';
import { lexiconScore } from './lexicon.js';
import { LABEL_DESCRIPTIONS } from './taxonomy.js';
import { TUNING, type Tuning } from './tuning.js';

export interface Prototypes {
  topics: Map<string, number[][]>;
  intentions: Map<string, number[][]>;
  positive: number[][];
  negative: number[][];
  neutral: number[][];
}

/** Every prototype sentence (and each label's taxonomy description), in a fixed order. */
export function prototypeTexts(): string[] {
  const texts: string[] = [];
  for (const [label, examples] of [...Object.entries(TOPIC_EXAMPLES), ...Object.entries(INTENTION_EXAMPLES)]) {
    texts.push(LABEL_DESCRIPTIONS[label], ...examples);
  }
  texts.push(...SENTIMENT_EXAMPLES.positive, ...SENTIMENT_EXAMPLES.negative, ...SENTIMENT_EXAMPLES.neutral);
  return texts;
}

export function buildPrototypes(vectors: number[][]): Prototypes {
  let i = 0;
  const take = (n: number) => vectors.slice(i, (i += n));
  const topics = new Map<string, number[][]>();
  const intentions = new Map<string, number[][]>();
  for (const [label, examples] of Object.entries(TOPIC_EXAMPLES)) topics.set(label, take(examples.length + 1));
  for (const [label, examples] of Object.entries(INTENTION_EXAMPLES)) intentions.set(label, take(examples.length + 1));
  const positive = take(SENTIMENT_EXAMPLES.positive.length);
  const negative = take(SENTIMENT_EXAMPLES.negative.length);
  const neutral = take(SENTIMENT_EXAMPLES.neutral.length);
  return { topics, intentions, positive, negative, neutral };
}

export function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  return s;
}

/** Mean of the k best similarities: steadier than the single best match. */
function topK(v: number[], protos: number[][], k: number): number {
  const sims = protos.map((p) => dot(v, p)).sort((x, y) => y - x);
  const n = Math.min(k, sims.length);
  return sims.slice(0, n).reduce((s, x) => s + x, 0) / n;
}

export function labelScores(v: number[], protos: Map<string, number[][]>, k: number): Map<string, number> {
  return new Map([...protos].map(([label, ps]) => [label, topK(v, ps, k)]));
}

function pick(scores: Map<string, number>, thresholds: Record<string, number>, fallback: number, max: number): string[] {
  return [...scores]
    .filter(([label, s]) => s >= (thresholds[label] ?? fallback))
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([label]) => label);
}

export function classify(text: string, v: number[], p: Prototypes, t: Tuning = TUNING) {
  const topicScores = labelScores(v, p.topics, t.k);
  const intentScores = labelScores(v, p.intentions, t.k);
  const topics = pick(topicScores, t.topicThresholds, t.topicThreshold, 3);
  const intentions = pick(intentScores, t.intentionThresholds, t.intentionThreshold, 3);

  const embedded = neighbourSentiment(v, p, t.sentimentNeighbours);
  const lex = lexiconScore(text);
  // A plain question ("Can I switch plans?") is neutral unless its words say otherwise; its
  // neighbours (refunds, billing) would otherwise drag it negative.
  const plainQuestion = /\?\s*$/.test(text.trim()) && lex.hits === 0;
  let sentiment = Math.tanh(t.sentimentScale * (lex.hits > 0 ? t.lexiconWeight * lex.score + (1 - t.lexiconWeight) * embedded : embedded) + t.sentimentBias);
  if (plainQuestion) sentiment *= t.questionDamping;
  sentiment = Math.max(-1, Math.min(1, sentiment));
  // Two general cues the embedding misses: a question asks for help, and strong praise is a
  // recommendation (the taxonomy's "praises the product"), each still gated by similarity.
  const asks = /\?|\b(how (do|can) i|can you|could you|please help)\b/i.test(text);
  if (asks && !intentions.includes('support_request') && (intentScores.get('support_request') ?? 0) >= t.questionThreshold) {
    intentions.push('support_request');
  }
  if (sentiment >= t.praiseSentiment && !intentions.includes('recommend')) intentions.push('recommend');
  return { sentiment: Math.round(sentiment * 1000) / 1000 || 0, topics, intentions };
}

/**
 * Sentiment of the nearest example sentences: each of the k most similar prototypes votes +1
 * (positive), -1 (negative) or 0 (neutral), weighted by its similarity.
 */
function neighbourSentiment(v: number[], p: Prototypes, k: number): number {
  const votes = [
    ...p.positive.map((x) => [dot(v, x), 1]),
    ...p.negative.map((x) => [dot(v, x), -1]),
    ...p.neutral.map((x) => [dot(v, x), 0]),
  ].sort((a, b) => b[0] - a[0]).slice(0, k);
  const weight = votes.reduce((s, [sim]) => s + Math.max(sim, 0), 0) || 1;
  return votes.reduce((s, [sim, value]) => s + Math.max(sim, 0) * value, 0) / weight;
}
