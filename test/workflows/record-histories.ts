/**
 * Records the histories that test/workflows/replay.test.ts replays: each workflow type of a
 * checkout's workflows/, along each path its code can take, run on a Temporal dev server with
 * stand-in activities. Not part of the test run. Run it when a workflow's code has changed on
 * purpose (after the commit), so the new version's histories join the older ones: those stay, as
 * they are what workflows started by the previous deployment replay against the new code.
 *
 *   npx tsx test/workflows/record-histories.ts
 *
 * records this repository's workflows/, which must be committed: files are named
 * `<workflow type>-<commit>-<path>.json` (`.json.gz` when long), the commit being the last one
 * that changed workflows/. An older deployment's code is recorded from a worktree of its commit:
 *
 *   git worktree add /tmp/wt-<sha> <sha> && ln -s "$PWD/node_modules" /tmp/wt-<sha>/
 *   npx tsx test/workflows/record-histories.ts /tmp/wt-<sha> --types deliveryWorkflow,deliveryV2Workflow
 *   git worktree remove --force /tmp/wt-<sha>
 *
 * (--types keeps to the workflow types whose commands changed at that commit.)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { Activities } from '../../src/temporal/activities.js';
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';
import { WORKFLOW_BUNDLER_OPTIONS } from '../../src/temporal/worker.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { types: { type: 'string' } } });
const checkout = path.resolve(positionals[0] ?? path.join(import.meta.dirname, '../..'));
const git = (...args: string[]) => execFileSync('git', ['-C', checkout, ...args], { encoding: 'utf8' }).trim();
if (git('status', '--porcelain', '--', 'workflows/')) {
  console.error(`${checkout}/workflows has uncommitted changes: commit first, the files are named by the commit`);
  process.exit(2);
}
const commit = git('log', '-1', '--abbrev=7', '--format=%h', '--', 'workflows/');
const workflowsDir = path.join(checkout, 'workflows');
const dir = path.join(import.meta.dirname, 'histories');

/** A delivery's attempts answer these in turn (a function throws, as a database outage would). */
type Answer = Awaited<ReturnType<Activities['deliverAttempt']>> | (() => never);
const answering = (answers: Answer[]): Partial<Activities> => {
  let i = 0;
  return {
    deliverAttempt: async () => {
      const a = answers[Math.min(i++, answers.length - 1)];
      return typeof a === 'function' ? a() : a;
    },
  };
};
const ok = { outcome: 'success', statusCode: 200 } as const;
const failed = { outcome: 'failed', statusCode: 500 } as const;
const databaseDown = () => {
  throw new Error('database down');
};

interface Recording {
  path: string;
  args: unknown[];
  /** Fresh per run: the stand-ins count their own calls. */
  activities: () => Partial<Activities>;
  /** A word the checkout's workflows/ must hold for this path to exist in that version. */
  needs?: string;
}
const delivery = { eventId: 1, webhookId: 2, pipelineId: 3, retryScheduleMs: [100, 100], timeoutMs: 1_000 };
const deliveryPaths: Recording[] = [
  { path: 'delivered', activities: () => answering([ok]) },
  { path: 'retried-then-delivered', activities: () => answering([failed, { ...failed, retryAfterMs: 150 }, ok]) },
  { path: 'exhausted', activities: () => answering([failed]) },
  { path: 'stopped', activities: () => answering([{ outcome: 'stopped', statusCode: 410 }]) },
  // Retried by Temporal, 1 s then 2 s later: a local activity's second retry waits on a timer.
  { path: 'attempt-threw-then-delivered', activities: () => answering([databaseDown, databaseDown, ok]) },
  {
    path: 'deferred-then-delivered',
    needs: "'deferred'",
    activities: () => answering([{ outcome: 'deferred', statusCode: 0, deferMs: 100, turnAt: 1 }, ok]),
  },
  {
    path: 'failed-with-turn-then-delivered',
    needs: 'nextTurnInMs',
    activities: () => answering([{ ...failed, nextTurnAt: 5, nextTurnInMs: 150 }, ok]),
  },
].map((r) => ({ ...r, args: [delivery] }));

/** Pages of 10 users from `afterUserPk` until `lastUserPk`. */
const pagesUntil = (lastUserPk: number): Partial<Activities> => ({
  evaluateSegmentPage: async ({ afterUserPk }) => ({
    evaluated: 10,
    changes: 1,
    nextAfterUserPk: afterUserPk + 10 < lastUserPk ? afterUserPk + 10 : null,
  }),
});
const evaluation = { segmentPk: 5, version: 2, afterUserPk: 0, evaluated: 0, changes: 0 };

/** Backfill pages of 10 users from `afterUserPk` until `lastUserPk`. */
const backfillUntil = (lastUserPk: number): Partial<Activities> => ({
  backfillLabelPage: async ({ afterUserPk }) => ({
    users: 10,
    changed: 2,
    nextAfterUserPk: afterUserPk + 10 < lastUserPk ? afterUserPk + 10 : null,
  }),
});
const backfill = { labelId: 3, version: 2, afterUserPk: 0, users: 0, changed: 0 };

const recordings: Record<string, Recording[]> = {
  deliveryV2Workflow: deliveryPaths,
  deliveryWorkflow: deliveryPaths,
  batchWorkflow: [
    {
      path: 'three-chunks',
      args: [{ sourceId: 7, projectId: 1, userCount: 120, chunkSize: 50, parallelChunks: 2 }],
      activities: () => ({
        processChunk: async ({ from, to }) => ({ processed: to - from, failed: 0, skipped: 0 }),
        completeBatch: async () => undefined,
      }),
    },
  ],
  labelTrainingWorkflow: [
    {
      path: 'ready',
      args: [{ labelId: 3, version: 1 }],
      activities: () => ({ trainLabelVersion: async () => 'ready' }),
    },
  ],
  labelBackfillWorkflow: [
    { path: 'three-pages', args: [backfill], activities: () => backfillUntil(30) },
    { path: 'continued-as-new', args: [backfill], activities: () => backfillUntil(1_010) },
  ],
  segmentEvaluationWorkflow: [
    { path: 'three-pages', args: [evaluation], activities: () => pagesUntil(30) },
    // The first run's history: its 100 pages (PAGES_PER_RUN), then continue-as-new.
    { path: 'continued-as-new', args: [evaluation], activities: () => pagesUntil(1_010) },
  ],
};

const exported = Object.entries(await import(pathToFileURL(path.join(workflowsDir, 'index.ts')).href))
  .filter(([, v]) => typeof v === 'function')
  .map(([name]) => name);
const types = values.types?.split(',') ?? exported;
for (const type of types) {
  if (!exported.includes(type)) throw new Error(`${type} is not a workflow of ${workflowsDir}`);
  if (!recordings[type]) throw new Error(`no recording declared for ${type}: add its paths here`);
}
const workflowSource = readdirSync(workflowsDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(path.join(workflowsDir, f), 'utf8'))
  .join('\n');
// The checkout's own list, of the shape of ours.
const searchAttributes: typeof import('../../workflows/search-attributes.js') = await import(
  pathToFileURL(path.join(workflowsDir, 'search-attributes.ts')).href
);

const cli = await resolveTemporalCli();
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: { type: 'existing-path', path: cli },
    searchAttributes: Object.values(searchAttributes),
  },
});
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(workflowsDir, 'index.ts'),
  ...WORKFLOW_BUNDLER_OPTIONS,
});

/** Runs one workflow to its end with the recording's stand-ins, and writes its first run's history. */
async function record(type: string, r: Recording) {
  const taskQueue = `record-${type}-${r.path}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: { code },
    activities: r.activities(),
  });
  const workflowId = `${type}-${r.path}`;
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start(type, { taskQueue, workflowId, args: r.args });
    await handle.result();
    // The CLI writes the proto3 JSON that replay.test.ts reads (and the Temporal UI downloads).
    const json = execFileSync(cli, [
      ...['workflow', 'show', '--address', env.address, '--output', 'json'],
      ...['--workflow-id', workflowId, '--run-id', handle.firstExecutionRunId],
    ]);
    // A long history (the hundred pages before a continue-as-new) is kept gzipped: a twentieth the size.
    const gzip = json.length > 64 * 1024;
    const file = path.join(dir, `${type}-${commit}-${r.path}.json${gzip ? '.gz' : ''}`);
    const bytes = gzip ? gzipSync(json, { level: 9 }) : json;
    writeFileSync(file, bytes);
    console.log(`recorded ${path.relative(process.cwd(), file)} (${Math.round(bytes.length / 1024)} KB)`);
  });
}

try {
  for (const type of types)
    for (const r of recordings[type]) if (!r.needs || workflowSource.includes(r.needs)) await record(type, r);
} finally {
  await env.teardown();
}
process.exit(0);
