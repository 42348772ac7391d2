import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_BUNDLER_OPTIONS, WORKFLOWS_PATH } from '../../src/temporal/worker.js';
import * as workflows from '../../workflows/index.js';

/**
 * The workflow code of today replays the histories of workflows started by earlier deployments
 * (test/workflows/histories/, recorded by record-histories.ts from the commit in each file's
 * name): every workflow type, along each path its code takes. A change that alters the commands a
 * running workflow already made fails here with a nondeterminism error, before a deploy strands
 * the workflows in flight. What replay compares is the sequence of commands and their kinds
 * (activity type, timer, upsert, continue-as-new): not activity inputs, not timer durations, and
 * not where a local activity's marker falls among the other commands of its workflow task.
 */
const dir = path.join(import.meta.dirname, 'histories');
const files = readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f));

/** A history file as JSON: the proto3 JSON of `temporal workflow show --output json`. */
interface HistoryJson {
  events: { eventType: string; workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }[];
}
const readJson = (file: string): HistoryJson => {
  const bytes = readFileSync(path.join(dir, file));
  return JSON.parse((file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'));
};

/**
 * Read with the protobufjs of @temporalio/proto itself: the copy beside @temporalio/common is
 * another instance here (npm cannot hoist one over @grpc's protobufjs 7), and historyFromJSON
 * mixing the two fails with "type must be a Type".
 */
const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const { fromJson } = fromProto('protobufjs/ext/protojson');
const { patchProtobufRoot } = fromProto('../lib/patch-protobuf-root');
const historyType = patchProtobufRoot(fromProto('./index.js')).lookupType('temporal.api.history.v1.History');

/** How a whole run ends; a history cut short would replay whatever the code does next. */
const CLOSED = [
  'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
  'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED',
  'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
];
const typeOf = (file: string) => file.slice(0, file.indexOf('-'));

describe('replay of recorded histories', () => {
  let code: string;
  beforeAll(async () => {
    // The bundler's progress and the replay workers' state changes (several per history) are INFO.
    const logger = new DefaultLogger('WARN');
    Runtime.install({ logger });
    ({ code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, ...WORKFLOW_BUNDLER_OPTIONS, logger }));
  }, 120_000);

  it('holds histories of every workflow type the worker registers', () => {
    const types = Object.entries(workflows)
      .filter(([, v]) => typeof v === 'function')
      .map(([name]) => name);
    expect(types.length).toBeGreaterThan(0);
    expect(files.length).toBeGreaterThan(0);
    expect(types.filter((type) => !files.some((f) => typeOf(f) === type))).toEqual([]);
  });

  it.each(files)('replays %s', async (file) => {
    const json = readJson(file);
    // The file holds one whole run of the workflow type its name says.
    expect(json.events[0].workflowExecutionStartedEventAttributes?.workflowType.name).toBe(typeOf(file));
    expect(CLOSED).toContain(json.events.at(-1)?.eventType);
    await Worker.runReplayHistory(
      { workflowBundle: { code } },
      fromJson(historyType, json, { ignoreUnknownFields: true }),
      file,
    );
  });
});
