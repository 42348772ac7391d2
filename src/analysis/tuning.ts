/**
 * Thresholds and weights, tuned on the development set only (../shared/eval/dev.jsonl) with a
 * coarse grid; per-label thresholds were shrunk halfway toward the global one so they do not
 * memorise the 180 dev sentences. See docs/analysis.md.
 */
export interface Tuning {
  /** Similarity of a message to a label = mean of its k best prototype similarities. */
  k: number;
  topicThreshold: number;
  intentionThreshold: number;
  topicThresholds: Record<string, number>;
  intentionThresholds: Record<string, number>;
  sentimentScale: number;
  sentimentBias: number;
  sentimentNeighbours: number;
  /** Factor applied to the sentiment of a question with no sentiment words. */
  questionDamping: number;
  lexiconWeight: number;
  /** support_request for a question whose similarity reaches this. */
  questionThreshold: number;
  /** recommend when the sentiment reaches this. */
  praiseSentiment: number;
}

export const TUNING: Tuning = {
  k: 3,
  topicThreshold: 0.4,
  intentionThreshold: 0.45,
  topicThresholds: { performance: 0.425, security: 0.45, mobile: 0.425 },
  intentionThresholds: { churn: 0.425, price_sensitive: 0.425, feature_request: 0.475, recommend: 0.475, support_request: 0.425 },
  sentimentScale: 1.5,
  sentimentBias: 0.1,
  sentimentNeighbours: 9,
  questionDamping: 0.2,
  lexiconWeight: 0.5,
  questionThreshold: 0.2,
  praiseSentiment: 0.4,
};
