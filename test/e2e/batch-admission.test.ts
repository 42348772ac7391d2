import { describe, expect, it } from 'vitest';
import { call, newTenant, waitForBatch, withDb } from '../support/api.js';

/**
 * Batches admitted per tenant, end to end (TENANT_BATCHES_RUNNING, default 4): the api starts the
 * batches that get a place, the relay starts the others as those complete. The integration test
 * (test/integration/batch-admission.test.ts) checks the admission rules; this one checks the wiring.
 */
describe('batch admission through the api, the workflow and the relay', () => {
  it("starts a tenant's batches four at a time, the others after a completion, and analyses every one", async () => {
    const t = await newTenant('admission');
    const sent = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        call('POST', '/api/v1/users', {
          key: t.key,
          body: { project_id: t.projectId, users: [{ user_id: `a${i}`, text: 'The export keeps failing.' }] },
        }),
      ),
    );
    expect(sent.map((r) => r.status)).toEqual(Array(7).fill(202));
    const ids = sent.map((r) => r.body.source_id as number);
    for (const id of ids) expect(await waitForBatch(id)).toEqual({ processed: 1, failed: 0 });

    const rows: { started: number; completed: number }[] = await withDb(
      async (db) =>
        (
          await db.query(
            `SELECT extract(epoch FROM workflow_started_at) * 1000 AS started,
                    extract(epoch FROM completed_at) * 1000 AS completed
               FROM sources WHERE id = ANY($1) ORDER BY workflow_started_at`,
            [ids],
          )
        ).rows,
    );
    const firstCompletion = Math.min(...rows.map((r) => Number(r.completed)));
    // Sent at the same moment: without admission all seven start within milliseconds, long before
    // any one-user batch completes. With it, the last three start only after a completion.
    const startedAfterACompletion = rows.filter((r) => Number(r.started) >= firstCompletion);
    expect(startedAfterACompletion.length).toBeGreaterThanOrEqual(3);
    for (let i = 0; i < 7; i++) {
      const p = await call('GET', `/api/v1/profiles/a${i}?project_id=${t.projectId}`, { key: t.key });
      expect(p.status).toBe(200);
    }
  });
});
