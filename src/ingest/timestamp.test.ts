import { describe, expect, it } from 'vitest';
import { daysInMonth, parseStrictTimestamp } from './timestamp.js';
import { validateBatch } from './validate-batch.js';
import { AppError } from '../errors.js';

const iso = (t: string) => {
  const d = parseStrictTimestamp(t);
  return typeof d === 'string' ? d : d.toISOString();
};

describe('strict timestamps', () => {
  it('reads valid instants exactly, offsets and fractions included', () => {
    expect(iso('2026-03-01T09:30:00Z')).toBe('2026-03-01T09:30:00.000Z');
    expect(iso('2026-03-01T10:30:00+01:00')).toBe('2026-03-01T09:30:00.000Z');
    expect(iso('2026-03-01T04:00:00-0530')).toBe('2026-03-01T09:30:00.000Z');
    expect(iso('2026-03-01T09:30Z')).toBe('2026-03-01T09:30:00.000Z');
    expect(iso('2026-03-01T09:30:00.123456789Z')).toBe('2026-03-01T09:30:00.123Z');
    expect(iso('2026-03-01')).toBe('2026-03-01T00:00:00.000Z');
    expect(iso('2024-02-29T12:00:00Z')).toBe('2024-02-29T12:00:00.000Z');
    expect(iso('2000-02-29')).toBe('2000-02-29T00:00:00.000Z');
  });

  it('refuses dates and times that do not exist instead of shifting them', () => {
    for (const t of [
      '2026-02-31',
      '2026-02-30T10:00:00Z',
      '2026-12-01T24:00:00Z',
      '2025-02-29',
      '2100-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z',
      '2026-01-01T10:00:00+24:00',
    ]) {
      expect(parseStrictTimestamp(t), t).toEqual(expect.any(String));
    }
  });

  it('refuses ambiguous or malformed text', () => {
    for (const t of [
      '2026-01-01T10:00:00',
      'yesterday',
      '2026-1-1',
      '20260101',
      '2026-01-01 10:00:00Z',
      '2026-01-01T10:00:00ZZ',
      '',
    ]) {
      expect(parseStrictTimestamp(t), t).toEqual(expect.any(String));
    }
  });

  it('knows the calendar', () => {
    expect([2024, 2025, 2000, 2100].map((y) => daysInMonth(y, 2))).toEqual([29, 28, 29, 28]);
    expect([1, 4, 6, 9, 11, 12].map((m) => daysInMonth(2026, m))).toEqual([31, 30, 30, 30, 30, 31]);
  });
});

describe('batch timestamps: bounds', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const batch = (timestamp: string) =>
    validateBatch({ projectId: 1, users: [{ userId: 'a', text: 'hi', timestamp }] }, now);
  const field = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return err instanceof AppError ? `${err.code} ${err.field}` : String(err);
    }
    return 'accepted';
  };

  it('accepts up to 5 minutes of clock skew and back to 2000-01-01', () => {
    expect(batch('2026-11-23T12:05:00Z').items[0].timestamp.toISOString()).toBe('2026-11-23T12:05:00.000Z');
    expect(batch('2000-01-01T00:00:00Z').items[0].timestamp.toISOString()).toBe('2000-01-01T00:00:00.000Z');
  });

  it('refuses the future (it would freeze the profile window) and the distant past, naming the field', () => {
    expect(field(() => batch('2026-11-23T12:05:01Z'))).toBe('invalid_argument users[0].timestamp');
    expect(field(() => batch('9999-01-01T00:00:00Z'))).toBe('invalid_argument users[0].timestamp');
    expect(field(() => batch('1999-12-31T23:59:59Z'))).toBe('invalid_argument users[0].timestamp');
    expect(field(() => batch('2026-02-31'))).toBe('invalid_argument users[0].timestamp');
  });
});
