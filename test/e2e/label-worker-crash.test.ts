import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { call, control, newTenant, stack, waitFor } from '../support/api.js';

/**
 * A worker killed while it trains a label (issue 47): the label stays `training`, nothing half
 * written, and the version becomes ready once a worker is back (the activity is retried).
 */
async function trainingActivityStarted(projectId: number): Promise<boolean> {
  const connection = await Connection.connect({ address: stack().temporalAddress });
  try {
    const client = new Client({ connection, namespace: 'default' });
    for await (const w of client.workflow.list({
      query: `WorkflowType = 'labelTrainingWorkflow' AND ProjectId = '${projectId}'`,
    })) {
      const d = await client.workflow.getHandle(w.workflowId).describe();
      if ((d.raw.pendingActivities ?? []).some((a) => String(a.state).includes('STARTED') || a.state === 2))
        return true;
    }
    return false;
  } finally {
    await connection.close();
  }
}

describe('a worker killed mid-training', () => {
  it('leaves the label training, and it becomes ready after the restart', { timeout: 300_000 }, async () => {
    const t = await newTenant('label-crash');
    // 500 examples: the embedding alone keeps the activity busy for seconds on the local model.
    const examples = Array.from({ length: 500 }, (_, i) =>
      i % 2 === 0
        ? { text: `My parcel number ${i} has not arrived, the tracking is stuck since day ${i % 17}.`, match: true }
        : { text: `Question ${i}: how do I change the email address on account ${i % 23}?`, match: false },
    );
    const created = await call('POST', `/api/v1/projects/${t.projectId}/labels`, {
      key: t.key,
      body: { name: 'stuck_parcel', examples },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await waitFor('the training activity running', () => trainingActivityStarted(t.projectId), 60_000, 50);
    await control('worker/kill');
    try {
      const during = await call('GET', `/api/v1/projects/${t.projectId}/labels/stuck_parcel`, { key: t.key });
      expect(during.body).toMatchObject({ state: 'training', ready_version: null, quality: null });
    } finally {
      await control('worker/start');
    }
    const done = await waitFor(
      'the label ready after the restart',
      async () => {
        const r = await call('GET', `/api/v1/projects/${t.projectId}/labels/stuck_parcel`, { key: t.key });
        return r.body.state === 'ready' && r.body;
      },
      180_000,
    );
    expect(done).toMatchObject({ version: 1, ready_version: 1 });
    expect(done.quality).toMatchObject({ examples: 500, matching: 250, folds: 5, warning: null });
  });
});
