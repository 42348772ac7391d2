import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../src/temporal/activities.js';

export interface BatchInput {
  sourceId: number;
  projectId: number;
  userCount: number;
  chunkSize: number;
  parallelChunks: number;
}

export interface BatchOutput {
  sourceId: number;
  processed: number;
  failed: number;
  /** Items an earlier attempt had already folded (a retry after a crash). */
  skipped: number;
}

// No maximum attempts: an accepted batch must finish, even after a long database or embedder outage.
const { processChunk } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  // A killed worker is noticed after this long, and the chunk is retried elsewhere.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const { completeBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '1 minute' },
});

/**
 * Analyses one submitted batch: its items are split into chunks (one embedding call each) that
 * run `parallelChunks` at a time. Texts and vectors stay in PostgreSQL; only ids and counts pass here.
 */
export async function batchWorkflow(input: BatchInput): Promise<BatchOutput> {
  const ranges: [number, number][] = [];
  for (let from = 0; from < input.userCount; from += input.chunkSize) {
    ranges.push([from, Math.min(from + input.chunkSize, input.userCount)]);
  }
  const totals = { processed: 0, failed: 0, skipped: 0 };
  let next = 0;
  const lane = async () => {
    while (next < ranges.length) {
      const [from, to] = ranges[next++];
      const r = await processChunk({ sourceId: input.sourceId, from, to });
      totals.processed += r.processed;
      totals.failed += r.failed;
      totals.skipped += r.skipped;
    }
  };
  await Promise.all(Array.from({ length: Math.min(input.parallelChunks, ranges.length) }, lane));
  await completeBatch({
    sourceId: input.sourceId,
    workflowId: workflowInfo().workflowId,
    processed: totals.processed + totals.skipped,
    failed: totals.failed,
  });
  return { sourceId: input.sourceId, ...totals };
}
