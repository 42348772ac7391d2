/**
 * Pure profile aggregates: a user's most recent messages folded into the numbers the profile
 * API returns and segment rules match on. Formulas are documented in docs/aggregates-and-rules.md;
 * keep the two in step.
 */

/** Number of most recent messages the aggregates look at. */
export const WINDOW_SIZE = 20;

/** |recent half mean - earlier half mean| below this is noise, reported as `stable`. */
export const TREND_DEAD_BAND = 0.15;
/** A message at or below this sentiment counts as negative. */
export const NEGATIVE_THRESHOLD = -0.2;
export const MAX_TOP_TOPICS = 5;

/** How strongly each intention signals that the user may leave; unlisted intentions weigh 0. */
export const CHURN_INTENT_WEIGHTS: Readonly<Record<string, number>> = { churn: 1, refund: 0.6, downgrade: 0.6 };
/** Weights of the three churn factors; they sum to 1 so the score stays in [0, 1]. */
export const CHURN_FACTOR_WEIGHTS = { negative_sentiment: 0.4, declining_trend: 0.2, churn_intent: 0.4 } as const;

export interface WindowMessage {
  timestamp: Date;
  sentiment: number;
  topics: string[];
  intentions: string[];
  /** The words that drove the message's churn reading (analysis); absent for messages analysed before they were kept. */
  churnWords?: string[];
  /** The project's custom labels the message matched (docs/labels.md); absent: none. */
  labels?: string[];
}

/** A `messages` row as the database gives it: what the fold and the retention sweep read. */
export interface MessageRow {
  written_at: Date;
  sentiment: number;
  topics: string[];
  intentions: string[];
  churn_words: string[] | null;
  labels?: string[] | null;
}

/** The window of `messages` rows as computeAggregates reads it (churn words null: none kept). */
export const windowOfRows = (rows: MessageRow[]): WindowMessage[] =>
  rows.map((m) => ({
    timestamp: m.written_at,
    sentiment: m.sentiment,
    topics: m.topics,
    intentions: m.intentions,
    churnWords: m.churn_words ?? [],
    labels: m.labels ?? [],
  }));

export const SENTIMENT_TRENDS = ['improving', 'stable', 'declining'] as const;
export type SentimentTrend = (typeof SENTIMENT_TRENDS)[number];

export interface ChurnRiskFactors {
  negative_sentiment: number;
  declining_trend: number;
  churn_intent: number;
  /**
   * What the user wrote that was read as churn: the words that drove the window's churn readings,
   * most messages first, then newest first; at most MAX_CHURN_WORDS.
   */
  churn_words: string[];
}

/** Words listed in churn_risk_factors.churn_words. */
export const MAX_CHURN_WORDS = 5;

export interface Aggregates {
  window_size: number;
  avg_sentiment: number;
  sentiment_trend: SentimentTrend;
  top_topics: string[];
  topic_scores: Record<string, number>;
  intentions_summary: string[];
  negative_ratio: number;
  churn_risk_score: number;
  churn_risk_factors: ChurnRiskFactors;
  price_sensitive_ratio: number;
  message_frequency_days: number | null;
  /** Custom labels matched by any message of the window, the most shared first (docs/labels.md). */
  labels: string[];
  /** Per custom label matched in the window: the share of the window's messages that match it. */
  label_ratios: Record<string, number>;
}

const DAY_MS = 86_400_000;

export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000 + 0; // + 0 turns -0 into 0
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * Aggregates over `window`: the user's most recent messages in any order. Only the newest
 * WINDOW_SIZE are used if more are given. Throws on an empty window or an invalid timestamp,
 * both programming errors upstream.
 */
export function computeAggregates(window: WindowMessage[]): Aggregates {
  if (window.length === 0) throw new Error('computeAggregates needs at least one message');
  const times = window.map((m, i) => {
    const t = m.timestamp instanceof Date ? m.timestamp.getTime() : Number.NaN;
    if (!Number.isFinite(t)) throw new Error(`message ${i} has an invalid timestamp`);
    return t;
  });
  // Array.prototype.sort is stable, so messages with equal timestamps keep their given order.
  const order = window
    .map((_, i) => i)
    .sort((a, b) => times[a] - times[b])
    .slice(-WINDOW_SIZE);
  const msgs = order.map((i) => window[i]);
  const n = msgs.length;
  // Analysis promises [-1, 1]; clamp anyway so a bad row cannot push a score out of range.
  const sentiments = msgs.map((m) => (Number.isFinite(Number(m.sentiment)) ? clamp(Number(m.sentiment), -1, 1) : 0));

  const avg = mean(sentiments);
  const delta = trendDelta(sentiments);
  const trend = trendLabel(delta);
  const topicScores = shareScores(msgs.map((m) => m.topics));
  const negativeRatio = sentiments.filter((s) => s <= NEGATIVE_THRESHOLD).length / n;
  const labelScores = shareScores(msgs.map((m) => m.labels ?? []));

  const factors: ChurnRiskFactors = {
    // Both how often the user is negative and how negative on average.
    negative_sentiment: clamp((negativeRatio + Math.max(0, -avg)) / 2, 0, 1),
    // Only a trend labelled `declining` counts, so the factor never contradicts the label.
    declining_trend: trend === 'declining' ? clamp(-(delta ?? 0), 0, 1) : 0,
    churn_intent: churnIntent(msgs.map((m) => m.intentions)),
    churn_words: churnWords(msgs),
  };
  const score =
    CHURN_FACTOR_WEIGHTS.negative_sentiment * factors.negative_sentiment +
    CHURN_FACTOR_WEIGHTS.declining_trend * factors.declining_trend +
    CHURN_FACTOR_WEIGHTS.churn_intent * factors.churn_intent;

  const first = times[order[0]];
  const last = times[order[n - 1]];
  return {
    window_size: n,
    avg_sentiment: round4(clamp(avg, -1, 1)),
    sentiment_trend: trend,
    top_topics: rankByScore(topicScores).slice(0, MAX_TOP_TOPICS),
    topic_scores: Object.fromEntries(Object.entries(topicScores).map(([t, s]) => [t, round4(s)])),
    intentions_summary: rankByScore(shareScores(msgs.map((m) => m.intentions))),
    negative_ratio: round4(negativeRatio),
    churn_risk_score: round4(clamp(score, 0, 1)),
    churn_risk_factors: {
      negative_sentiment: round4(factors.negative_sentiment),
      declining_trend: round4(factors.declining_trend),
      churn_intent: round4(factors.churn_intent),
      churn_words: factors.churn_words,
    },
    price_sensitive_ratio: round4(msgs.filter((m) => distinct(m.intentions).includes('price_sensitive')).length / n),
    // The mean of consecutive gaps telescopes to (last - first) / (n - 1).
    message_frequency_days: n < 2 ? null : round4((last - first) / DAY_MS / (n - 1)),
    labels: rankByScore(labelScores),
    label_ratios: Object.fromEntries(Object.entries(labelScores).map(([l, s]) => [l, round4(s)])),
  };
}

/**
 * Mean sentiment of the newer half minus mean of the older half of the chronological window;
 * with an odd count the middle message belongs to neither half. Null under 3 messages, where a
 * "trend" would be one message against another.
 */
function trendDelta(chronologicalSentiments: number[]): number | null {
  const n = chronologicalSentiments.length;
  if (n < 3) return null;
  const half = Math.floor(n / 2);
  return mean(chronologicalSentiments.slice(n - half)) - mean(chronologicalSentiments.slice(0, half));
}

function trendLabel(delta: number | null): SentimentTrend {
  // Rounded first so a delta that is 0.15 on paper is not 0.1499999 in floating point.
  if (delta === null || Math.abs(round4(delta)) < TREND_DEAD_BAND) return 'stable';
  return delta > 0 ? 'improving' : 'declining';
}

/** Share of messages mentioning each label (a label repeated inside one message counts once). */
function shareScores(labelsPerMessage: string[][]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const labels of labelsPerMessage) {
    for (const label of distinct(labels)) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return Object.fromEntries([...counts].map(([label, c]) => [label, c / labelsPerMessage.length]));
}

/** Labels by score descending, ties by name ascending so the order is deterministic. */
function rankByScore(scores: Record<string, number>): string[] {
  return Object.keys(scores).sort((a, b) => scores[b] - scores[a] || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Half "has the user ever said it in the window" (the strongest message), half "how much of the
 * window says it" (mean message weight): one "I'm cancelling" among 20 messages already gives
 * 0.525, a window of nothing else gives 1.
 */
function churnIntent(intentionsPerMessage: string[][]): number {
  const weights = intentionsPerMessage.map((labels) => Math.max(0, ...labels.map((l) => CHURN_INTENT_WEIGHTS[l] ?? 0)));
  return clamp(0.5 * Math.max(...weights) + 0.5 * mean(weights), 0, 1);
}

/** The window's churn words (chronological messages): in most messages first, then the most recently said. */
function churnWords(chronological: WindowMessage[]): string[] {
  const seen = new Map<string, { messages: number; last: number }>();
  chronological.forEach((m, i) => {
    for (const w of new Set(m.churnWords ?? [])) seen.set(w, { messages: (seen.get(w)?.messages ?? 0) + 1, last: i });
  });
  return [...seen]
    .sort((a, b) => b[1].messages - a[1].messages || b[1].last - a[1].last)
    .slice(0, MAX_CHURN_WORDS)
    .map(([w]) => w);
}

const distinct = (labels: string[] | null | undefined): string[] => [...new Set(labels ?? [])];

/**
 * Profile embedding: the mean of the window's message embeddings, re-normalised to unit length so
 * cosine similarity against it is a plain dot product. Null with no vectors or a zero mean.
 */
export function meanEmbedding(vectors: number[][]): number[] | null {
  const usable = vectors.filter((v) => Array.isArray(v) && v.length > 0);
  if (usable.length === 0) return null;
  const dim = usable[0].length;
  if (usable.some((v) => v.length !== dim)) throw new Error('meanEmbedding: vectors differ in length');
  const sum = new Array<number>(dim).fill(0);
  for (const v of usable) {
    for (let i = 0; i < dim; i++) sum[i] += Number.isFinite(v[i]) ? v[i] : 0;
  }
  const norm = Math.sqrt(sum.reduce((s, x) => s + x * x, 0));
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  return sum.map((x) => x / norm);
}
