/** Metrics of the analysis against a labelled set (pure; used by `npm run eval`). */
export interface Labelled {
  text: string;
  sentiment: number;
  topics: string[];
  intentions: string[];
}

export interface Predicted {
  sentiment: number;
  topics: string[];
  intentions: string[];
}

export type Polarity = 'negative' | 'neutral' | 'positive';

export function polarity(s: number): Polarity {
  return s <= -0.2 ? 'negative' : s >= 0.2 ? 'positive' : 'neutral';
}

export interface Prf {
  precision: number;
  recall: number;
  f1: number;
  support: number;
}

function prf(tp: number, fp: number, fn: number): Prf {
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, support: tp + fn };
}

/** Micro-averaged P/R/F1 over all labels, plus the same per label. */
export function multiLabel(gold: string[][], pred: string[][], labels: readonly string[]) {
  const per: Record<string, Prf> = {};
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const label of labels) {
    let ltp = 0;
    let lfp = 0;
    let lfn = 0;
    gold.forEach((g, i) => {
      const inGold = g.includes(label);
      const inPred = pred[i].includes(label);
      if (inGold && inPred) ltp++;
      else if (inPred) lfp++;
      else if (inGold) lfn++;
    });
    per[label] = prf(ltp, lfp, lfn);
    tp += ltp;
    fp += lfp;
    fn += lfn;
  }
  return { micro: prf(tp, fp, fn), per };
}

export function evaluate(
  items: Labelled[],
  predictions: Predicted[],
  topics: readonly string[],
  intentions: readonly string[],
) {
  const n = items.length;
  const polarityAccuracy =
    items.filter((it, i) => polarity(it.sentiment) === polarity(predictions[i].sentiment)).length / n;
  const sentimentMae = items.reduce((s, it, i) => s + Math.abs(it.sentiment - predictions[i].sentiment), 0) / n;
  const topicMetrics = multiLabel(
    items.map((i) => i.topics),
    predictions.map((p) => p.topics),
    topics,
  );
  const intentionMetrics = multiLabel(
    items.map((i) => i.intentions),
    predictions.map((p) => p.intentions),
    intentions,
  );
  return {
    n,
    polarityAccuracy,
    sentimentMae,
    topics: topicMetrics,
    intentions: intentionMetrics,
    churn: intentionMetrics.per.churn,
  };
}

/** Polarity confusion matrix: rows gold, columns predicted, in the order negative, neutral, positive. */
export function polarityConfusion(items: Labelled[], predictions: Predicted[]): number[][] {
  const order: Polarity[] = ['negative', 'neutral', 'positive'];
  const m = order.map(() => order.map(() => 0));
  items.forEach(
    (it, i) => m[order.indexOf(polarity(it.sentiment))][order.indexOf(polarity(predictions[i].sentiment))]++,
  );
  return m;
}
