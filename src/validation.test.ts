import { describe, expect, it } from 'vitest';
import { isStorableText, requireName, requireStorable } from './validation.js';

describe('isStorableText', () => {
  it.each([
    'plain',
    '',
    "'; DROP TABLE users; --",
    '<script>alert(1)</script>',
    '🙂 paired surrogates',
    'é\u202E\uFEFF',
  ])('accepts %j', (s) => {
    expect(isStorableText(s)).toBe(true);
  });

  // NUL breaks PostgreSQL text; a lone surrogate becomes a `\ud800` escape that jsonb refuses.
  it.each(['\u0000', 'a\u0000b', '\uD800', 'x\uDC00', 'end\uDBFF', '\uDC00\uD800'])('refuses %j', (s) => {
    expect(isStorableText(s)).toBe(false);
  });
});

describe('requireName', () => {
  it('trims and returns a storable name', () => {
    expect(requireName('  Acme  ')).toBe('Acme');
  });

  it('refuses NUL and lone surrogates with a client error naming the field', () => {
    expect(() => requireName('a\u0000b', 'name')).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'name' }),
    );
    expect(() => requireStorable('\uD800', 'user_id')).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'user_id' }),
    );
  });
});
