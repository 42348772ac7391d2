import { describe, expect, it } from 'vitest';
import { createDeliveryLimits, everyAtMost, WaitYourTurn } from './in-flight.js';
import { waitYourTurnDelayMs } from '../temporal/activities.js';

describe('delivery limits', () => {
  it('bound attempts per webhook and per tenant in the process, and free a place on release (once)', async () => {
    const limits = createDeliveryLimits({ perWebhook: 2, perTenant: 3 });
    const a1 = await limits.acquire(1, 10);
    await limits.acquire(1, 10);
    await expect(limits.acquire(1, 10)).rejects.toThrow(WaitYourTurn); // webhook 1 is full
    await limits.acquire(2, 10);
    await expect(limits.acquire(3, 10)).rejects.toThrow(/tenant 10/); // tenant 10 is full
    await expect(limits.acquire(4, 11)).resolves.toBeTypeOf('function'); // another tenant is not affected
    await a1();
    await a1(); // a second release changes nothing
    await expect(limits.acquire(1, 10)).resolves.toBeTypeOf('function');
    await expect(limits.acquire(1, 10)).rejects.toThrow(WaitYourTurn);
  });

  it('check a full webhook before anything else, and send its attempts back for up to the attempt timeout', async () => {
    const limits = createDeliveryLimits({ perWebhook: 1, perTenant: 3, attemptTimeoutMs: 10_000 });
    expect(() => limits.checkWebhook(1)).not.toThrow();
    await limits.acquire(1, 10);
    const full = (() => {
      try {
        limits.checkWebhook(1);
      } catch (err) {
        return err;
      }
    })();
    expect(full).toBeInstanceOf(WaitYourTurn);
    expect((full as WaitYourTurn).maxDelayMs).toBe(10_000);
    expect(() => limits.checkWebhook(2)).not.toThrow();
    // A tenant's bound is not a hanging receiver's: its attempts come back within 5 s.
    await limits.acquire(2, 10);
    await limits.acquire(3, 10);
    await expect(limits.acquire(4, 10)).rejects.toThrow(expect.objectContaining({ maxDelayMs: 5_000 }));
  });
});

describe('everyAtMost', () => {
  it('refreshes at most every ms, shares a refresh, and retries after a failure', async () => {
    let t = 0;
    let loads = 0;
    let fail = false;
    const get = everyAtMost(
      1_000,
      async () => {
        loads++;
        if (fail) throw new Error('down');
        return loads;
      },
      () => t,
    );
    expect(await Promise.all([get(), get()])).toEqual([1, 1]);
    t = 999;
    expect(await get()).toBe(1);
    t = 1_000;
    fail = true;
    await expect(get()).rejects.toThrow('down');
    fail = false;
    expect(await get()).toBe(3);
  });
});

describe('waitYourTurnDelayMs', () => {
  it('starts near 250 ms and stays under 7.5 s however long the wait', () => {
    expect(waitYourTurnDelayMs(1, () => 0.5)).toBe(250);
    expect(waitYourTurnDelayMs(3, () => 0.5)).toBe(1_000);
    expect(waitYourTurnDelayMs(50, () => 0.999)).toBeLessThanOrEqual(7_500);
    expect(waitYourTurnDelayMs(50, () => 0)).toBe(2_500);
  });
  it('stays under 1.5 x its cap when given one', () => {
    expect(waitYourTurnDelayMs(50, () => 0.5, 10_000)).toBe(10_000);
    expect(waitYourTurnDelayMs(50, () => 0.999, 10_000)).toBeLessThanOrEqual(15_000);
    expect(waitYourTurnDelayMs(2, () => 0.5, 10_000)).toBe(500);
  });
});
