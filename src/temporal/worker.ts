import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import { installTemporalRuntime, temporalLogger } from './runtime.js';
import type { Activities } from './activities.js';
import { deliveryTaskQueue } from './starters.js';

// The sources under tsx, the compiled files under dist/ (npm run build, the container image).
export const WORKFLOWS_PATH = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../workflows/index.ts' : '../../workflows/index.js', import.meta.url),
);

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
 * Up to two workers on one connection and one workflow bundle: the installation's task queue runs
 * batches and segment evaluations with `activityConcurrency` slots (the analysis; the Knex pool is
 * sized from it, see main.ts), and the delivery queue runs delivery workflows with slots of their
 * own. `queues` says which this process polls (its role). The analysis worker still knows the
 * delivery workflow, so deliveries started on its queue before the split finish there.
 */
export async function createWorkers(
  config: Config,
  address: string,
  taskQueue: string,
  queues: { analysis: boolean; delivery: boolean },
  activities: Activities,
  log: Logger,
): Promise<{ workers: Worker[]; connection: NativeConnection; taskQueues: string[] }> {
  // Our JSON logger and metrics registry, before the first native connection creates the runtime.
  installTemporalRuntime(log, config.logLevel);
  const connection = await NativeConnection.connect({ address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    webpackConfigHook: WORKFLOW_BUNDLER_OPTIONS!.webpackConfigHook,
    // The bundler's progress lines are not an operator's business: its warnings are.
    logger: temporalLogger(log, 'WARN'),
  });
  const common = { connection, namespace: config.temporal.namespace, workflowBundle, activities };
  const workers: Worker[] = [];
  if (queues.analysis)
    workers.push(
      await Worker.create({
        ...common,
        taskQueue,
        // Tenants take turns in the task queue (fairness keys, starters.ts), not in the worker.
        maxConcurrentActivityTaskExecutions: config.worker.activityConcurrency,
      }),
    );
  if (queues.delivery)
    workers.push(
      await Worker.create({
        ...common,
        taskQueue: deliveryTaskQueue(taskQueue),
        maxConcurrentActivityTaskExecutions: config.worker.deliveryConcurrency,
        // Attempts run as local activities (workflows/delivery.ts), in the same slots.
        maxConcurrentLocalActivityExecutions: config.worker.deliveryConcurrency,
      }),
    );
  return { workers, connection, taskQueues: workers.map((w) => w.options.taskQueue) };
}
