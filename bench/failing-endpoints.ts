import { newTenant, waitFor } from '../test/support/api.js';
import { enqueueEvents, fanOutRate } from '../test/support/fan-out.js';
import { makeHook } from '../test/support/webhooks.js';
import { startReceiver } from '../test/support/receiver.js';

/**
 * Attack 3 (issue 23): a tenant's fan-out of `fanOut` events to a fast receiver, alone, then while
 * another tenant's four endpoints answer 503 at once and retry on the stack's schedule. Reports
 * both rates (first POST to last) and the failing attempts per second meanwhile.
 */
export async function failingEndpoints(log: (line: string) => void, opts = { fanOut: 500, perEndpoint: 250 }) {
  const fast = await startReceiver();
  let failed = 0;
  const failing = await startReceiver(() => (failed++, 503));
  try {
    const victim = await newTenant('fanout-victim');
    const hook = await makeHook(victim, fast.url);
    const solo = await fanOutRate(victim, hook, fast.received, opts.fanOut);
    const storm = await newTenant('failing-attacker');
    for (let i = 0; i < 4; i++) await enqueueEvents(storm, await makeHook(storm, failing.url), opts.perEndpoint);
    await waitFor('the failing endpoints retrying', async () => failed >= 100, 120_000, 100);
    const failedBefore = failed;
    const started = Date.now();
    const shared = await fanOutRate(victim, hook, fast.received, opts.fanOut);
    const failedPerSecond = ((failed - failedBefore) * 1_000) / (Date.now() - started);
    log(
      `failing endpoints: fan-out of ${opts.fanOut} ${solo.toFixed(1)}/s alone, ${shared.toFixed(1)}/s beside 4 failing endpoints (${failedPerSecond.toFixed(1)} failed attempts/s)`,
    );
    return { fanOut: opts.fanOut, solo, shared, ratio: shared / solo, failedPerSecond };
  } finally {
    await Promise.all([fast.close(), failing.close()]);
  }
}
