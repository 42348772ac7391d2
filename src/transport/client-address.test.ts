import { describe, expect, it } from 'vitest';
import { clientAddress, compileTrustedProxies } from './client-address.js';

describe('clientAddress behind load balancers (TRUSTED_PROXIES)', () => {
  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    const trust = compileTrustedProxies([]);
    expect(clientAddress('203.0.113.9', '198.51.100.1', trust)).toBe('203.0.113.9');
  });

  it('takes the nearest untrusted address a trusted proxy forwarded', () => {
    const trust = compileTrustedProxies(['10.0.0.0/8']);
    // client -> 10.1.1.1 (proxy) -> 10.0.0.5 (proxy) -> us; a client cannot forge its way past them.
    expect(clientAddress('10.0.0.5', '198.51.100.7, 10.1.1.1', trust)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.5', ['6.6.6.6, 198.51.100.7', '10.1.1.1'], trust)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.5', undefined, trust)).toBe('10.0.0.5');
  });

  it('refuses an unreadable TRUSTED_PROXIES entry', () => {
    expect(() => compileTrustedProxies(['not-an-address'])).toThrow();
  });
});
