import { describe, expect, it } from 'vitest';
import { createUserHasher } from './user-hash.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

describe('user id hash', () => {
  it('is the same for the same project and id, and differs with the project, the id or the key', () => {
    const hash = createUserHasher(KEY_A);
    expect(hash(1, 'alice')).toBe(hash(1, 'alice'));
    expect(hash(1, 'alice')).toMatch(/^[0-9a-f]{64}$/);
    expect(hash(2, 'alice')).not.toBe(hash(1, 'alice'));
    expect(hash(1, 'alicf')).not.toBe(hash(1, 'alice'));
    expect(createUserHasher(KEY_B)(1, 'alice')).not.toBe(hash(1, 'alice'));
  });
});
