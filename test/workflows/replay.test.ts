import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_BUNDLER_OPTIONS, WORKFLOWS_PATH } from '../../src/temporal/worker.js';
import * as workflows from '../../workflows/index.js';

/**
 * The workflow code of today replays the histories of workflows started by earlier deployments
 * (test/workflows/histories/, recorded by record-histories.ts at the commit in each file's name):
 * every workflow type, along each path its code takes (delivered, retried, exhausted, stopped,
 * deferred to a turn, failed with a booked turn; a batch of three chunks; an evaluation of three
 * pages). A change that alters the commands a running workflow already made fails here with a
 * nondeterminism error, before a deploy strands the workflows in flight.
 */
const dir = path.join(import.meta.dirname, 'histories');

/**
 * A history file (the proto3 JSON of `temporal workflow show --output json`) as the History the
 * replay takes. Read with the protobufjs of @temporalio/proto itself: the copy beside
 * @temporalio/common is another instance here (npm cannot hoist one over @grpc's protobufjs 7),
 * and historyFromJSON mixing the two fails with "type must be a Type".
 */
const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const { fromJson } = fromProto('protobufjs/ext/protojson');
const { patchProtobufRoot } = fromProto('../lib/patch-protobuf-root');
const historyType = patchProtobufRoot(fromProto('./index.js')).lookupType('temporal.api.history.v1.History');
const readHistory = (file: string) =>
  fromJson(historyType, JSON.parse(readFileSync(path.join(dir, file), 'utf8')), { ignoreUnknownFields: true });
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('replay of recorded histories', () => {
  let code: string;
  beforeAll(async () => {
    ({ code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, ...WORKFLOW_BUNDLER_OPTIONS }));
  }, 120_000);

  it('holds histories of every workflow type the worker registers', () => {
    const types = Object.entries(workflows)
      .filter(([, v]) => typeof v === 'function')
      .map(([name]) => name);
    expect(types.length).toBeGreaterThan(0);
    for (const type of types)
      expect(
        files.some((f) => f.startsWith(`${type}-`)),
        type,
      ).toBe(true);
  });

  it.each(files)('replays %s', async (file) => {
    await Worker.runReplayHistory({ workflowBundle: { code } }, readHistory(file), file);
  });
});
