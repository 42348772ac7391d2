import type { Embedder } from './embedder.js';

// Minimal placeholder classifier (replaced by the prototype-based analyser).
export interface MessageAnalysis {
  sentiment: number;
  topics: string[];
  intentions: string[];
  embedding: number[];
}

export interface Analyzer {
  analyzeBatch(texts: string[]): Promise<MessageAnalysis[]>;
  embedder: Embedder;
}

const NEG = /\b(terrible|awful|hate|crash\w*|slow|expensive|cancel\w*|refund|broken|bug\w*|wrong|annoying|unhappy|ignore\w*|charge[ds]? me twice)\b/gi;
const POS = /\b(love|great|wonderful|excellent|helpful|fast|easy|thanks?|recommend|nice|clear)\b/gi;

export async function createAnalyzer(embedder: Embedder): Promise<Analyzer> {
  return {
    embedder,
    async analyzeBatch(texts) {
      const vectors = await embedder.embed(texts);
      return texts.map((t, i) => {
        const n = (t.match(NEG) ?? []).length;
        const p = (t.match(POS) ?? []).length;
        const sentiment = Math.max(-1, Math.min(1, (p - n) / Math.max(1, p + n)));
        const intentions = /cancel|switch|leave/i.test(t) ? ['churn'] : [];
        return { sentiment: Math.round(sentiment * 1000) / 1000, topics: [], intentions, embedding: vectors[i] };
      });
    },
  };
}
