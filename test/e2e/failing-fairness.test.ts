import { describe, expect, it } from 'vitest';
import { call, newTenant, waitFor } from '../support/api.js';
import { enqueueEvents } from '../support/fan-out.js';
import { makeHook } from '../support/webhooks.js';
import { startReceiver } from '../support/receiver.js';

/**
 * Delivery attempts are shared between tenants over time, not only in flight: while one tenant's
 * fan-out goes to a fast receiver, another tenant's four endpoints answer 503 at once and retry on
 * the stack's short schedule (1s,2s,2s,2s,2s); their attempts take turns with the fan-out.
 * The events are written straight to the outbox, so what is exercised is the delivery path alone.
 * The rates (the fan-out alone and beside the failing endpoints) are measured by the bench
 * (`npm run bench -- --only=fairness`, bench/failing-endpoints.ts); here they are counts.
 */
const FANOUT = 200;
const STORM_PER_ENDPOINT = 150;

describe('fairness of delivery attempts over time', () => {
  it(
    "between a 200-event fan-out's first and last delivery, another tenant's four fast-failing endpoints get fewer attempts than it, and more than none",
    { timeout: 300_000 },
    async () => {
      let failed = 0;
      const failing = await startReceiver(() => (failed++, 503));
      // The failing endpoints' attempt count when the fan-out's first and last deliveries arrive.
      const at: { first?: number; last?: number } = {};
      const fast = await startReceiver((n) => {
        if (n === 1) at.first = failed;
        if (n === FANOUT) at.last = failed;
        return 200;
      });
      try {
        const victim = await newTenant('fanout');
        const victimHook = await makeHook(victim, fast.url);
        const storm = await newTenant('failing');
        const hooks = await Promise.all([1, 2, 3, 4].map(() => makeHook(storm, failing.url)));
        for (const h of hooks) await enqueueEvents(storm, h, STORM_PER_ENDPOINT);
        // The storm is under way: every endpoint has failed, retries are coming.
        await waitFor('the failing endpoints retrying', async () => failed >= 100, 60_000, 100);
        await enqueueEvents(victim, victimHook, FANOUT);
        await waitFor(`${FANOUT} deliveries`, async () => at.last !== undefined, 900_000, 100);
        const stormAttempts = at.last! - at.first!;
        console.log(
          `[failing-fairness] between the fan-out's first and last of ${FANOUT} deliveries: ` +
            `${stormAttempts} attempts to the 4 failing endpoints`,
        );
        // While the victim's 200 were delivered, the failing tenant's attempts took turns at most
        // half as fast as the busiest other tenant's (src/fairness/failing-turns.ts, at least 2 a
        // second), so they number fewer than the victim's deliveries; without the turns the
        // failing endpoints took 89% of a worker's attempts. And they went on: not starved.
        expect(stormAttempts).toBeLessThan(FANOUT);
        expect(stormAttempts).toBeGreaterThan(0);
        for (const h of hooks) {
          await call('DELETE', `/projects/${storm.projectId}/pipelines/${storm.pipelineId}/webhooks/${h}`, {
            key: storm.key,
          });
        }
      } finally {
        await Promise.all([fast.close(), failing.close()]);
      }
    },
  );
});
