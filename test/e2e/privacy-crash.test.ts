import { describe, expect, it } from 'vitest';
import { call, control, newTenant, waitFor, waitForBatch } from '../support/api.js';
import { messagesOf, racingBatch, rowsHolding, submit, tag } from '../support/privacy.js';

/**
 * An erasure while the worker is dead (kill -9) in the middle of a batch that holds the user: the
 * chunk retried after the restart must not bring the user back (docs/privacy.md). In the
 * lifecycle project: it kills the stack's worker.
 */
describe('erasure racing a batch in flight, the worker killed', () => {
  it('a chunk retried after the worker was killed (kill -9) and the erasure ran meanwhile', async () => {
    const t = await newTenant('race-kill');
    const who = `racekill-${tag()}`;
    const marker = `racekill${tag()}`;
    const batch = await submit(t, racingBatch(who, 200, marker));
    await waitFor('the batch under way', async () => (await messagesOf(batch.source_id)) > 0, 120_000, 20);
    await control('worker/kill');
    try {
      const erased = await call('DELETE', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key });
      expect(erased.status).toBe(202);
      expect(erased.body.counts.batch_items).toBe(20);
    } finally {
      await control('worker/start');
    }
    const outcome = await waitForBatch(batch.source_id, 240_000);
    expect(outcome.failed).toBe(0);
    const read = await call('GET', `/api/v1/batches/${batch.source_id}?project_id=${t.projectId}`, { key: t.key });
    expect(read.body).toMatchObject({ status: 'completed', accepted: 200, suppressed: 0, erased: 20 });
    expect((await call('GET', `/api/v1/profiles/${who}?project_id=${t.projectId}`, { key: t.key })).status).toBe(404);
    expect(await rowsHolding([who, marker])).toEqual([]);
    expect(await messagesOf(batch.source_id)).toBe(180);
  });
});
