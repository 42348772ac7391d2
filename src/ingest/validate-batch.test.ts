import { describe, expect, it } from 'vitest';
import { requireStoredUserId, validateBatch } from './validate-batch.js';

const now = new Date('2026-11-25T12:00:00Z');
const batch = (attributes: Record<string, unknown>) => ({
  projectId: 1,
  users: [
    { userId: 'a', text: 'fine' },
    { userId: 'b', text: 'also fine', attributes },
  ],
});

describe('validateBatch attributes', () => {
  it('refuses an attribute named __proto__ with a 400 naming it, instead of dropping it', () => {
    const attributes = JSON.parse('{"plan": "pro", "__proto__": "x"}');
    expect(() => validateBatch(batch(attributes), now)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', field: 'users[1].attributes.__proto__' }),
    );
  });

  it('stores other keys as given, prototype-like names included', () => {
    const attributes = { plan: 'pro', constructor: 'c', proto: 1 };
    expect(validateBatch(batch(attributes), now).items[1].attributes).toEqual(attributes);
  });
});

describe('validateBatch user ids', () => {
  const ids = (userId: string) => ({
    projectId: 1,
    users: [
      { userId: 'a', text: 'fine' },
      { userId, text: 'fine' },
    ],
  });

  it('refuses the dot segments "." and "..", which no URL path can carry, naming the field', () => {
    for (const id of ['.', '..']) {
      expect(() => validateBatch(ids(id), now)).toThrow(
        expect.objectContaining({ code: 'invalid_argument', field: 'users[1].user_id' }),
      );
    }
  });

  it('keeps other dotted ids', () => {
    for (const id of ['...', '.hidden', 'a.b', '.. ']) expect(validateBatch(ids(id), now).items[1].user_id).toBe(id);
  });
});

describe('requireStoredUserId (the routes that find a stored user)', () => {
  it('takes every id ingest ever stored, the dot segments refused since included', () => {
    for (const id of ['.', '..', ' ', 'x'.repeat(256), 'é']) expect(requireStoredUserId(id, 'user_id')).toBe(id);
  });

  it('refuses what no stored id can be: empty (an erased item keeps it), too long, not storable text', () => {
    for (const id of ['', 'x'.repeat(257), 'a\u0000b', '\ud800', 7, undefined]) {
      expect(() => requireStoredUserId(id, 'user_id')).toThrow(
        expect.objectContaining({ code: 'invalid_argument', field: 'user_id' }),
      );
    }
  });
});
