import { describe, expect, it } from 'vitest';
import { AuthFailureLimiter, clientKey } from './failure-limiter.js';

function limiter(limit: number, windowMs: number, maxClients?: number) {
  const clock = { t: 1_000_000 };
  const l = new AuthFailureLimiter({ limit, windowMs, maxClients, now: () => clock.t });
  return { l, clock };
}

describe('AuthFailureLimiter', () => {
  it('lets `limit` failures through, then asks to wait until a token is back', () => {
    const { l } = limiter(20, 60_000);
    for (let i = 0; i < 20; i++) expect(l.failHere('10.0.0.1')).toBe(0);
    // One token every 3 s.
    expect(l.failHere('10.0.0.1')).toBe(3);
    expect(l.failHere('10.0.0.1')).toBe(3);
  });

  it('refills at limit per window, and counts down Retry-After as time passes', () => {
    const { l, clock } = limiter(20, 60_000);
    for (let i = 0; i < 20; i++) l.failHere('10.0.0.1');
    clock.t += 1_500;
    expect(l.failHere('10.0.0.1')).toBe(2);
    clock.t += 1_500;
    expect(l.failHere('10.0.0.1')).toBe(0);
    expect(l.failHere('10.0.0.1')).toBe(3);
    clock.t += 60_000;
    for (let i = 0; i < 20; i++) expect(l.failHere('10.0.0.1')).toBe(0);
    expect(l.failHere('10.0.0.1')).toBeGreaterThan(0);
  });

  it('limits each client on its own', () => {
    const { l } = limiter(2, 60_000);
    l.failHere('10.0.0.1');
    l.failHere('10.0.0.1');
    expect(l.failHere('10.0.0.1')).toBe(30);
    expect(l.failHere('10.0.0.2')).toBe(0);
    // The same IPv4 address seen through a dual-stack socket is the same client.
    expect(l.failHere('::ffff:10.0.0.1')).toBe(30);
  });

  it('never waits less than a second', () => {
    const { l } = limiter(1_000, 1_000);
    for (let i = 0; i < 1_000; i++) l.failHere('a');
    expect(l.failHere('a')).toBe(1);
  });

  it('forgets clients idle for a whole window, and never remembers more than maxClients', () => {
    const { l, clock } = limiter(5, 60_000, 100);
    for (let i = 0; i < 50; i++) l.failHere(`10.0.0.${i}`);
    expect(l.size).toBe(50);
    clock.t += 60_000;
    l.failHere('10.0.1.1');
    expect(l.size).toBe(1);
    for (let i = 0; i < 1_000; i++) l.failHere(`10.1.${i >> 8}.${i & 255}`);
    expect(l.size).toBe(100);
  });

  it('evicts the least recently failing client first, keeping an active attacker limited', () => {
    const { l, clock } = limiter(1, 60_000, 3);
    l.failHere('attacker');
    for (let i = 0; i < 10; i++) {
      clock.t += 10;
      expect(l.failHere('attacker')).toBeGreaterThan(0);
      l.failHere(`passer-by-${i}`);
    }
    expect(l.failHere('attacker')).toBeGreaterThan(0);
  });
});

describe('clientKey', () => {
  it('keys IPv4 by address and IPv6 by /64 prefix', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });
});
