import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { TenantRequests } from './tenant-requests.js';

/** A request that runs until the test lets it end. */
function held() {
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  return { done, end };
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as AppError,
  );

describe('TenantRequests', () => {
  it('runs at most perTenant of one tenant at once; the next waits for a place and gets it when one ends', async () => {
    const limits = new TenantRequests(2, 1_000);
    const [a, b] = [held(), held()];
    const ra = limits.run(1, () => a.done);
    const rb = limits.run(1, () => b.done);
    let thirdStarted = false;
    const rc = limits.run(1, async () => {
      thirdStarted = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(limits.inFlight(1)).toBe(2);
    expect(thirdStarted).toBe(false);
    a.end();
    await ra;
    await rc;
    expect(thirdStarted).toBe(true);
    b.end();
    await rb;
    expect(limits.inFlight(1)).toBe(0);
  });

  it("never holds another tenant's request", async () => {
    const limits = new TenantRequests(1, 1_000);
    const a = held();
    const ra = limits.run(1, () => a.done);
    await expect(limits.run(2, async () => 'other')).resolves.toBe('other');
    a.end();
    await ra;
  });

  it('answers rate_limited with Retry-After when no place frees within the wait', async () => {
    const limits = new TenantRequests(1, 30);
    const a = held();
    const ra = limits.run(1, () => a.done);
    const err = await rejection(limits.run(1, async () => undefined));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 1 });
    a.end();
    await ra;
    expect(limits.inFlight(1)).toBe(0);
  });

  it('refuses at once past the waiting room (4 per place), without waiting', async () => {
    const limits = new TenantRequests(1, 60_000);
    const a = held();
    const running = limits.run(1, () => a.done);
    const waiting = Array.from({ length: 4 }, () => limits.run(1, async () => 'ran'));
    const err = await rejection(limits.run(1, async () => undefined));
    expect(err).toMatchObject({ code: 'rate_limited' });
    a.end();
    await running;
    await expect(Promise.all(waiting)).resolves.toEqual(['ran', 'ran', 'ran', 'ran']);
  });

  it('keeps a place taken by enter() until it is given back, once however often that is called', async () => {
    const limits = new TenantRequests(2, 30);
    const first = await limits.enter(1);
    const second = await limits.enter(1);
    expect(limits.inFlight(1)).toBe(2);
    expect(await rejection(limits.run(1, async () => undefined))).toMatchObject({ code: 'rate_limited' });
    first();
    first();
    expect(limits.inFlight(1)).toBe(1);
    second();
    expect(limits.inFlight(1)).toBe(0);
  });

  it('frees the place of a request that failed', async () => {
    const limits = new TenantRequests(1, 1_000);
    await expect(limits.run(1, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(limits.inFlight(1)).toBe(0);
    await expect(limits.run(1, async () => 'next')).resolves.toBe('next');
  });
});
