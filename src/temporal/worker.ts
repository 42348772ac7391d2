import { fileURLToPath } from 'node:url';
import { NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config.js';
import type { Activities } from './activities.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

/** How the workflows are bundled (shared with the workflow tests). */
export const WORKFLOW_BUNDLER_OPTIONS: WorkerOptions['bundlerOptions'] = {
  // Our sources import './x.js' (NodeNext); let the bundler find the .ts file.
  webpackConfigHook: (webpackConfig) => {
    webpackConfig.resolve = {
      ...webpackConfig.resolve,
      extensionAlias: { '.js': ['.ts', '.js'] },
    };
    return webpackConfig;
  },
};

/**
 * The worker runs the workflows bundled from workflows/ and the activities built by
 * createActivities. Its activity concurrency is what the Knex pool is sized from (see main.ts),
 * so activities never wait on each other for a connection.
 */
export async function createWorker(
  config: Config,
  address: string,
  taskQueue: string,
  activities: Activities,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  // main.ts owns the shutdown order (servers, relay, worker, database, embedded services).
  Runtime.install({ shutdownSignals: [] });
  const connection = await NativeConnection.connect({ address });
  const options: WorkerOptions = {
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities,
    maxConcurrentActivityTaskExecutions: config.worker.activityConcurrency,
    bundlerOptions: WORKFLOW_BUNDLER_OPTIONS,
  };
  const worker = await Worker.create(options);
  return { worker, connection };
}
