import { describe, expect, it } from 'vitest';
import { secretsKeyId } from './secrets-key.js';
import { createUserHasher } from './user-hash.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const KEY_C = 'c'.repeat(64);

describe('user id hash', () => {
  it('is the same for the same project and id, and differs with the project, the id or the key', () => {
    const hash = (p: number, id: string) => createUserHasher(KEY_A).current(p, id).hash;
    expect(hash(1, 'alice')).toBe(hash(1, 'alice'));
    expect(hash(1, 'alice')).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(2, 'alice')).not.toBe(hash(1, 'alice'));
    expect(hash(1, 'alicf')).not.toBe(hash(1, 'alice'));
    expect(createUserHasher(KEY_B).current(1, 'alice').hash).not.toBe(hash(1, 'alice'));
  });

  it('names the key that made it, and matches under the previous keys too, current first', () => {
    const rotated = createUserHasher(KEY_B, [KEY_A, KEY_C]);
    expect(rotated.current(1, 'alice')).toEqual({ hash: expect.any(String), keyId: secretsKeyId(KEY_B) });
    expect(rotated.all(1, 'alice')).toEqual([
      createUserHasher(KEY_B).current(1, 'alice'),
      createUserHasher(KEY_A).current(1, 'alice'),
      createUserHasher(KEY_C).current(1, 'alice'),
    ]);
    // A key listed twice is tried once.
    expect(createUserHasher(KEY_A, [KEY_A, KEY_B, KEY_B]).all(1, 'x')).toHaveLength(2);
  });

  it('gives each key a short id that is not the key, nor its hashing key', () => {
    expect(secretsKeyId(KEY_A)).toMatch(/^[0-9a-f]{16}$/);
    expect(secretsKeyId(KEY_A)).toBe(secretsKeyId(KEY_A));
    expect(secretsKeyId(KEY_A)).not.toBe(secretsKeyId(KEY_B));
    expect(KEY_A).not.toContain(secretsKeyId(KEY_A));
  });
});
