import type { FairnessMechanism } from '../fairness-mechanisms.js';

/**
 * Scheduling niceness of a process that analyses (`worker`, `analysis-worker`): the embedder takes
 * every idle cycle anyway, and under contention the api, deliveries, PostgreSQL and Temporal go
 * first. On a machine of its own an analysis worker loses nothing. `WORKER_NICE=0` measured a
 * little faster embedding and slower everything else (docs/fairness.md).
 */
export const WORKER_NICE = 10;

/** The model threads run this many nice steps below their process (Linux niceness is per thread). */
export const MODEL_THREAD_NICE_STEPS = 5;

/** The niceness of an analysing process (0 with FAIRNESS_OFF=nice). */
export function workerNice(off: ReadonlySet<FairnessMechanism>): number {
  return off.has('nice') ? 0 : WORKER_NICE;
}
