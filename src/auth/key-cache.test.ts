import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';

describe('KeyCache', () => {
  const listening = (ttl = 1_000) => {
    const c = new KeyCache(ttl);
    c.setListening(true);
    return c;
  };

  it('serves a key for the TTL, then asks again', () => {
    const c = listening();
    c.set('h', 7, c.begin(), 0);
    expect(c.get('h', 999)).toBe(7);
    expect(c.get('h', 1_000)).toBeUndefined();
  });

  it('serves nothing while it is not listening for revocations', () => {
    const c = new KeyCache(1_000);
    c.set('h', 7, c.begin(), 0);
    expect(c.get('h', 1)).toBeUndefined();
    const l = listening();
    l.set('h', 7, l.begin(), 0);
    l.setListening(false);
    expect(l.get('h', 1)).toBeUndefined();
  });

  it('does not keep a lookup that began before a revocation cleared it', () => {
    const c = listening();
    const before = c.begin();
    c.clear(); // a revocation arrives while the lookup is in flight
    c.set('h', 7, before, 0);
    expect(c.get('h', 1)).toBeUndefined();
  });

  it('caches nothing with a TTL of 0', () => {
    const c = listening(0);
    c.set('h', 7, c.begin(), 0);
    expect(c.get('h', 0)).toBeUndefined();
  });

  it('forgets the oldest key past 10,000', () => {
    const c = listening();
    for (let i = 0; i <= 10_000; i++) c.set(`h${i}`, i, c.begin(), 0);
    expect(c.get('h0', 1)).toBeUndefined();
    expect(c.get('h10000', 1)).toBe(10_000);
  });
});
