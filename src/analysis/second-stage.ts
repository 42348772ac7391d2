/**
 * The small fits of the heads' second stage, on a few features each (heads.ts): Platt scaling, the
 * per-label stack that weighs the readers against each other, and the choice of a threshold. They
 * run on out-of-fold probabilities, a few thousand rows of at most five numbers, so exact methods
 * (Newton's, a full scan of thresholds) cost nothing.
 */

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
export const logit = (p: number) => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};

/**
 * Logistic regression on a few features by Newton's method (a tiny L2 keeps it finite when the
 * classes separate): Platt scaling is the one-feature case, the stack the few-feature one.
 * Returns the weights, then the bias. The first weight starts at 1, the others at 0: the first
 * feature alone is the fallback when the fit cannot be solved.
 */
export function logisticFit(rows: number[][], gold: number[], l2 = 1e-3): number[] {
  const k = rows[0].length + 1;
  const fallback = [1, ...new Array<number>(k - 1).fill(0)];
  const w = [...fallback];
  for (let it = 0; it < 50; it++) {
    const g = new Array<number>(k).fill(0);
    const h = Array.from({ length: k }, (_, a) =>
      Array.from({ length: k }, (_, b) => (a === b ? l2 * rows.length : 0)),
    );
    rows.forEach((r, i) => {
      const x = [...r, 1];
      const p = sigmoid(x.reduce((sum, v, c) => sum + v * w[c], 0));
      for (let a = 0; a < k; a++) {
        g[a] += (p - gold[i]) * x[a];
        for (let b = 0; b < k; b++) h[a][b] += p * (1 - p) * x[a] * x[b];
      }
    });
    for (let a = 0; a < k - 1; a++) g[a] += l2 * rows.length * w[a];
    const step = solve(h, g);
    if (!step) break;
    let moved = 0;
    for (let a = 0; a < k; a++) {
      w[a] -= step[a];
      moved += Math.abs(step[a]);
    }
    if (moved < 1e-7) break;
  }
  return w.every(Number.isFinite) ? w : fallback;
}

/** Gaussian elimination with partial pivoting; undefined when singular. */
function solve(a: number[][], b: number[]): number[] | undefined {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-12) return undefined;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** sigmoid(a * logit(p) + b), fitted on out-of-fold probabilities; identity when the fit turns the scores round. */
export function plattFit(scores: number[], gold: number[]): { a: number; b: number } {
  const [a, b] = logisticFit(
    scores.map((s) => [logit(s)]),
    gold,
  );
  return a > 0 ? { a, b } : { a: 1, b: 0 };
}

const THRESHOLDS = Array.from({ length: 37 }, (_, k) => Math.round((0.05 + 0.025 * k) * 1000) / 1000);

function counts(scores: number[], gold: number[], t: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  scores.forEach((s, i) => {
    if (s >= t && gold[i]) tp++;
    else if (s >= t) fp++;
    else if (gold[i]) fn++;
  });
  return { precision: tp + fp ? tp / (tp + fp) : 0, recall: tp + fn ? tp / (tp + fn) : 0 };
}

/** The threshold with the best F-beta (beta > 1 favours recall). */
export function bestThreshold(scores: number[], gold: number[], beta: number, tolerance = 0): number {
  const fs = THRESHOLDS.map((t) => {
    const { precision: p, recall: r } = counts(scores, gold, t);
    return p + r ? ((1 + beta ** 2) * p * r) / (beta ** 2 * p + r) : 0;
  });
  const top = Math.max(...fs);
  // The first best (the lowest threshold); with a tolerance, the highest threshold within it of the
  // best: where out-of-fold F1 cannot tell thresholds apart, the one with fewer false flags.
  if (tolerance <= 0) return THRESHOLDS[fs.findIndex((f) => f >= top - 1e-9)] ?? 0.5;
  for (let k = THRESHOLDS.length - 1; k >= 0; k--) if (fs[k] >= top - tolerance) return THRESHOLDS[k];
  return 0.5;
}

/**
 * The threshold with the best recall among those whose precision reaches `minPrecision` (a
 * decision a team acts on: a flag should be right at least that often); when none does, the one
 * with the best precision.
 */
export function thresholdForPrecision(scores: number[], gold: number[], minPrecision: number): number {
  let best: { t: number; recall: number } | undefined;
  let fallback = { t: 0.5, precision: -1 };
  for (const t of THRESHOLDS) {
    const { precision, recall } = counts(scores, gold, t);
    if (recall === 0) continue;
    if (precision >= minPrecision && (!best || recall > best.recall + 1e-9)) best = { t, recall };
    if (precision > fallback.precision + 1e-9) fallback = { t, precision };
  }
  return best?.t ?? fallback.t;
}

export function microF1(gold: number[][], pred: number[][]): number {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  gold.forEach((g, i) => g.forEach((v, o) => (v && pred[i][o] ? tp++ : pred[i][o] ? fp++ : v ? fn++ : 0)));
  return tp ? (2 * tp) / (2 * tp + fp + fn) : 0;
}
