import { describe, expect, it } from 'vitest';
import { createDeliveryLimits, createFairShare, everyAtMost, WaitYourTurn } from './in-flight.js';
import { waitYourTurnDelayMs } from '../temporal/activities.js';

describe('delivery limits', () => {
  it('bound attempts per webhook and per tenant, and free a place on release (once)', () => {
    const limits = createDeliveryLimits({ perWebhook: 2, perTenant: 3 });
    const a1 = limits.acquire(1, 10);
    limits.acquire(1, 10);
    expect(() => limits.acquire(1, 10)).toThrow(WaitYourTurn); // webhook 1 is full
    limits.acquire(2, 10);
    expect(() => limits.acquire(3, 10)).toThrow(/tenant 10/); // tenant 10 is full
    expect(() => limits.acquire(4, 11)).not.toThrow(); // another tenant is not affected
    a1();
    a1(); // a second release changes nothing
    expect(() => limits.acquire(1, 10)).not.toThrow();
    expect(() => limits.acquire(1, 10)).toThrow(WaitYourTurn);
  });
});

describe('fair share of analysis slots', () => {
  const fixed = (ids: number[]) => async () => new Set(ids);

  it('lets a tenant alone use all slots but one, kept for the next tenant to arrive', async () => {
    const fair = createFairShare({ slots: 4, activeTenants: fixed([1]) });
    for (let i = 0; i < 3; i++) await fair.acquire(1);
    await expect(fair.acquire(1)).rejects.toThrow(WaitYourTurn);
    const single = createFairShare({ slots: 1, activeTenants: fixed([1]) });
    await single.acquire(1); // one slot in all: it is used
  });

  it('splits the slots between the tenants with work, even before the second one has asked', async () => {
    const fair = createFairShare({ slots: 8, activeTenants: fixed([1, 2]) });
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await fair.acquire(1));
    await expect(fair.acquire(1)).rejects.toThrow(/fair share \(4 of 8/);
    await fair.acquire(2);
    held[0]();
    await fair.acquire(1); // its own released slot
  });

  it('counts a tenant that asked recently, and forgets it after recentMs', async () => {
    let t = 0;
    const fair = createFairShare({ slots: 3, activeTenants: fixed([]), recentMs: 1_000, now: () => t });
    const r = await fair.acquire(2);
    r();
    await fair.acquire(1);
    await expect(fair.acquire(1)).rejects.toThrow(WaitYourTurn); // 2 asked a moment ago: 1 slot each
    t = 1_500;
    await fair.acquire(1); // 2 is forgotten: tenant 1 is alone, with 3 - 1 slots
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
});
