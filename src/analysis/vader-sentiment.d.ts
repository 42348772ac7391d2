/** vader-sentiment ships no types; this is the one call the analysis makes (priors.ts). */
declare module 'vader-sentiment' {
  export const SentimentIntensityAnalyzer: {
    polarity_scores(text: string): { neg: number; neu: number; pos: number; compound: number };
  };
}
