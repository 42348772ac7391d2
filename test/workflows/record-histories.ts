/**
 * Records the histories that test/workflows/replay.test.ts replays: every workflow type, along
 * each path its code can take, run on a Temporal dev server with stand-in activities. Not part of
 * the test run: run it when a workflow changes on purpose, to add the new version's histories
 * BESIDE the old ones (never in their place: the old ones are what running workflows of the
 * previous deployment will replay against the new code).
 *
 *   npx tsx test/workflows/record-histories.ts <version-tag>
 *
 * Files are named `<workflow type>-<path>-<version-tag>.json`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { execFileSync } from 'node:child_process';
import type { Activities } from '../../src/temporal/activities.js';
import { resolveTemporalCli } from '../../src/dev-hosting/cli-binary.js';
import { WORKFLOW_BUNDLER_OPTIONS, WORKFLOWS_PATH } from '../../src/temporal/worker.js';
import * as searchAttributes from '../../workflows/search-attributes.js';

const tag = process.argv[2];
if (!tag || !/^[a-z0-9.-]+$/.test(tag)) {
  console.error('usage: npx tsx test/workflows/record-histories.ts <version-tag>');
  process.exit(2);
}
const dir = path.join(import.meta.dirname, 'histories');
const cli = await resolveTemporalCli();
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: cli },
    searchAttributes: Object.values(searchAttributes),
  },
});
const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, ...WORKFLOW_BUNDLER_OPTIONS });
let queue = 0;

/** Runs one workflow to its end with `activities`, and writes its history. */
async function record(type: string, name: string, args: unknown[], activities: Partial<Activities>) {
  const taskQueue = `record-${++queue}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { code },
    activities,
  });
  const workflowId = `${type}-${name}`;
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(type, { taskQueue, workflowId, args });
    await handle.result();
    const file = path.join(dir, `${type}-${name}-${tag}.json`);
    // The CLI writes the proto3 JSON that historyFromJSON reads (and the Temporal UI downloads).
    const json = execFileSync(cli, [
      'workflow',
      'show',
      '--address',
      env.address,
      '-w',
      workflowId,
      '--output',
      'json',
    ]);
    writeFileSync(file, json);
    console.log(`recorded ${file}`);
  });
}

/** A delivery's attempts answer these outcomes in turn. */
const answering = (outcomes: Awaited<ReturnType<Activities['deliverAttempt']>>[]): Partial<Activities> => {
  let i = 0;
  return { deliverAttempt: async () => outcomes[Math.min(i++, outcomes.length - 1)] };
};
const delivery = { eventId: 1, webhookId: 2, pipelineId: 3, retryScheduleMs: [100, 100], timeoutMs: 1_000 };
const ok = { outcome: 'success', statusCode: 200 } as const;
const failed = { outcome: 'failed', statusCode: 500 } as const;
/** Fresh stand-ins per run: each counts its own attempts. */
const paths = (): [string, Partial<Activities>][] => [
  ['delivered', answering([ok])],
  ['retried-then-delivered', answering([failed, { ...failed, retryAfterMs: 150 }, ok])],
  ['exhausted', answering([failed])],
  ['stopped', answering([{ outcome: 'stopped', statusCode: 410 }])],
  ['deferred-then-delivered', answering([{ outcome: 'deferred', statusCode: 0, deferMs: 100, turnAt: 1 }, ok])],
  ['failed-with-turn-then-delivered', answering([{ ...failed, nextTurnAt: 5, nextTurnInMs: 150 }, ok])],
];
try {
  for (const type of ['deliveryV2Workflow', 'deliveryWorkflow'])
    for (const [name, activities] of paths()) await record(type, name, [delivery], activities);
  await record(
    'batchWorkflow',
    'three-chunks',
    [{ sourceId: 7, projectId: 1, userCount: 120, chunkSize: 50, parallelChunks: 2 }],
    {
      processChunk: async ({ from, to }) => ({ processed: to - from, failed: 0, skipped: 0 }),
      completeBatch: async () => undefined,
    },
  );
  await record(
    'segmentEvaluationWorkflow',
    'three-pages',
    [{ segmentPk: 5, version: 2, afterUserPk: 0, evaluated: 0, changes: 0 }],
    {
      evaluateSegmentPage: async ({ afterUserPk }) => ({
        evaluated: 2,
        changes: 1,
        nextAfterUserPk: afterUserPk < 20 ? afterUserPk + 10 : null,
      }),
    },
  );
} finally {
  await env.teardown();
}
process.exit(0);
