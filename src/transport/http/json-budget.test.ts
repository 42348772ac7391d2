import { describe, expect, it } from 'vitest';
import { createJsonBudget, usersAtMost } from './json-budget.js';

const USERS = { maxItems: { users: { max: 3, error: usersAtMost } } };
const users = (n: number, extra = '') =>
  JSON.stringify({ project_id: 1, users: Array.from({ length: n }, (_, i) => ({ user_id: `u${i}`, text: 't,[{' })) }) +
  extra;

/** Feeds `text` in chunks of `size` bytes; answers the first error. */
function scan(text: string, limits = {}, size = 7) {
  const budget = createJsonBudget(limits);
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) {
    const err = budget.write(bytes.subarray(i, i + size));
    if (err) return err;
  }
  return undefined;
}

describe('json budget', () => {
  it('lets a batch at its users limit through and refuses one more, whatever the chunking', () => {
    for (const size of [1, 5, 64, 65_536]) {
      expect(scan(users(3), USERS, size)).toBeUndefined();
      expect(scan(users(4), USERS, size)).toMatchObject({ code: 'invalid_argument', field: 'users' });
    }
  });

  it('counts only the root key it limits, read as JSON.parse reads it', () => {
    // Commas, brackets and quotes inside strings, other arrays, and nested `users` do not count.
    const nested = JSON.stringify({ users: [1, 2], other: [1, 2, 3, 4, 5], deep: { users: [1, 2, 3, 4, 5] } });
    expect(scan(nested, USERS)).toBeUndefined();
    expect(scan('{"note": "a \\" , [users", "users": [1, 2, 3]}', USERS)).toBeUndefined();
    // An escaped key is still `users`, and a second `users` key is counted too.
    expect(scan('{"us\\u0065rs": [1, 2, 3, 4]}', USERS)).toMatchObject({ field: 'users' });
    expect(scan('{"users": [], "users": [1, 2, 3, 4]}', USERS)).toMatchObject({ field: 'users' });
    expect(scan('{"users": [[1, 2, 3, 4, 5], {"a": 1, "b": 2, "c": 3, "d": 4}]}', USERS)).toBeUndefined();
  });

  it('does not keep a long key: it matches no tracked key, and costs no memory', () => {
    const long = 'x'.repeat(1_000_000);
    expect(scan(`{"${long}users": [1, 2, 3, 4], "users": [1]}`, USERS, 65_536)).toBeUndefined();
    expect(scan(`{"${long}": [1], "users": [1, 2, 3, 4]}`, USERS, 65_536)).toMatchObject({ field: 'users' });
  });

  it('refuses a body over its values limit, wherever they are', () => {
    expect(scan(JSON.stringify({ x: [1, 2, 3] }), { maxValues: 5 })).toBeUndefined();
    expect(scan(JSON.stringify({ x: [1, 2, 3, 4, 5] }), { maxValues: 5 })).toMatchObject({
      code: 'payload_too_large',
    });
    expect(scan('['.repeat(6), { maxValues: 5 })).toMatchObject({ code: 'payload_too_large' });
    expect(scan(JSON.stringify({ s: ','.repeat(100) }), { maxValues: 5 })).toBeUndefined();
  });

  it('answers an error once, then ignores what follows', () => {
    const budget = createJsonBudget(USERS);
    expect(budget.write(Buffer.from(users(4)))).toBeDefined();
    expect(budget.write(Buffer.from(users(4)))).toBeUndefined();
  });

  it('reads 5 MB of 160,000 tiny users only up to the 1,001st', () => {
    const body = Buffer.from(
      JSON.stringify({
        project_id: 1,
        users: Array.from({ length: 160_000 }, (_, i) => ({ user_id: `u${i}`, text: 't' })),
      }),
    );
    const budget = createJsonBudget({ maxItems: { users: { max: 1_000, error: usersAtMost } } });
    let read = 0;
    for (let i = 0; i < body.length; i += 65_536) {
      read += 65_536;
      if (budget.write(body.subarray(i, i + 65_536))) break;
    }
    expect(read).toBeLessThan(100_000);
  });
});
