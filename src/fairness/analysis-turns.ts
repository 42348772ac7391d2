import { keepBeating } from '../keep-beating.js';
import type { AnalysisScheduler } from './analysis-scheduler.js';
import type { AnalysisActivity } from './delivery-gate.js';

/**
 * Everything fairness asks of one analysis activity (a chunk, a segment evaluation page): it runs
 * when its tenant's turn at this worker's analysis slots comes (analysis-scheduler.ts), on its
 * tenant's embedder lane, and deliveries yield while it waits or runs (delivery-gate.ts). Each part
 * is absent when switched off (FAIRNESS_OFF) or not built for this role.
 */
export function createAnalysisTurns(parts: { scheduler?: AnalysisScheduler; activity?: AnalysisActivity }) {
  return async <T>(
    attempt: {
      tenant: () => Promise<number | undefined>;
      /** A task waiting for its turn keeps beating: Temporal must neither time it out nor miss a cancellation. */
      heartbeat: () => void;
      signal: AbortSignal;
    },
    work: (lane: number | undefined) => Promise<T>,
  ): Promise<T> => {
    const leave = parts.activity?.enter();
    let release: (() => void) | undefined;
    try {
      const tenantId = await attempt.tenant();
      if (tenantId !== undefined && parts.scheduler) {
        release = await keepBeating(attempt.heartbeat, 5_000, parts.scheduler.acquire(tenantId, attempt.signal));
      }
      return await work(tenantId);
    } finally {
      release?.();
      leave?.();
    }
  };
}

export type AnalysisTurns = ReturnType<typeof createAnalysisTurns>;
