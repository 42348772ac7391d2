import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after.js';

const now = new Date('2026-11-25T10:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the time left until it, and a past date as 0', () => {
    expect(parseRetryAfter('Wed, 25 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wednesday, 25-Nov-26 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 25 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('caps at 24 hours', () => {
    expect(parseRetryAfter('3600', now)).toBe(3_600_000);
    expect(parseRetryAfter('999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('1000000000000', now)).toBe(MAX_RETRY_AFTER_MS);
    // Too long for a number (it reads as Infinity): still a delay, capped, not ignored.
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 25 Dec 2026 10:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('ignores what is absent or unreadable', () => {
    for (const v of [undefined, '', '  ', '-5', '1.5', 'soon', '2026-11-25T10:00:30Z', 'Wed, 99 Foo 2026 xx GMT']) {
      expect(parseRetryAfter(v, now)).toBeUndefined();
    }
  });

  it('reads the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], now)).toBe(7_000);
  });
});
