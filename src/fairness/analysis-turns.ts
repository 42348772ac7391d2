import type { AnalysisActivity } from './delivery-gate.js';

/**
 * Everything fairness asks of one analysis activity (a chunk, a segment evaluation page): it runs
 * on its tenant's embedder lane, and deliveries yield while it runs (delivery-gate.ts; absent when
 * switched off with FAIRNESS_OFF=gate or not built for this role). Tenants take turns before that,
 * in Temporal's task queue (fairness keys, temporal/starters.ts).
 */
export function createAnalysisTurns(parts: { activity?: AnalysisActivity }) {
  return async <T>(
    attempt: { tenant: () => Promise<number | undefined> },
    work: (lane: number | undefined) => Promise<T>,
  ): Promise<T> => {
    const leave = parts.activity?.enter();
    try {
      return await work(await attempt.tenant());
    } finally {
      leave?.();
    }
  };
}

export type AnalysisTurns = ReturnType<typeof createAnalysisTurns>;
