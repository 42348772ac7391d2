import os from 'node:os';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';
import { analysisOnThisHost } from '../../src/fairness/colocation.js';

/**
 * The delivery gate's condition in a delivery-worker process: an analysis worker polls from this
 * host. Asked of a real Temporal dev server, with a real worker polling.
 */
describe('an analysis worker on this host', () => {
  let env: TestWorkflowEnvironment;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: await resolveTemporalCli() } },
    });
  }, 180_000);
  afterAll(async () => env?.teardown());

  it('is seen among the pollers of its queue by hostname; another host, or a queue nobody polls, is not', async () => {
    const ask = (taskQueue: string, hostname?: string) =>
      analysisOnThisHost({ client: env.client, namespace: 'default', taskQueue, everyMs: 0, hostname })();
    expect(await ask('colocation-nobody')).toBe(false);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: 'colocation-analysis',
      activities: { noop: async () => undefined },
    });
    await worker.runUntil(async () => {
      const deadline = Date.now() + 20_000;
      while (!(await ask('colocation-analysis')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(await ask('colocation-analysis')).toBe(true);
      expect(await ask('colocation-analysis', `not-${os.hostname()}`)).toBe(false);
    });
  }, 60_000);
});
