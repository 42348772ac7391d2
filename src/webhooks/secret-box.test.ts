import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.js';

const keyHex = randomBytes(32).toString('hex');

/** Flips one bit of the base64 field at `index` (1 = IV, 2 = tag, 3 = ciphertext). */
function flip(sealed: string, index: number): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[index], 'base64');
  bytes[0] ^= 0x01;
  parts[index] = bytes.toString('base64');
  return parts.join(':');
}

describe('createSecretBox', () => {
  it('round-trips secrets, including unicode and empty ones', () => {
    const box = createSecretBox(keyHex);
    for (const plain of ['whsec-plain', 'sécret ✓ 🔑', '', 'x'.repeat(1000)]) {
      expect(box.open(box.seal(plain))).toBe(plain);
    }
  });

  it('never stores the plain text and uses a fresh IV each time', () => {
    const box = createSecretBox(keyHex);
    const a = box.seal('same-secret');
    const b = box.seal('same-secret');
    expect(a).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(a).not.toContain('same-secret');
    expect(a).not.toBe(b);
    expect(Buffer.from(a.split(':')[1], 'base64')).toHaveLength(12);
  });

  it('detects tampering with the IV, the tag or the ciphertext', () => {
    const box = createSecretBox(keyHex);
    const sealed = box.seal('hunter2-hunter2');
    for (const index of [1, 2, 3]) {
      expect(() => box.open(flip(sealed, index))).toThrow(/modified or sealed with another key/);
    }
  });

  it('fails to open with a different key', () => {
    const sealed = createSecretBox(keyHex).seal('hunter2');
    const other = createSecretBox(randomBytes(32).toString('hex'));
    expect(() => other.open(sealed)).toThrow(/modified or sealed with another key/);
  });

  it('opens values sealed under a previous key, and seals under the current one', () => {
    const previousKey = randomBytes(32).toString('hex');
    const sealedBefore = createSecretBox(previousKey).seal('sealed-before-rotation');
    const rotated = createSecretBox(keyHex, [previousKey]);
    expect(rotated.open(sealedBefore)).toBe('sealed-before-rotation');
    // What it seals needs only the current key.
    expect(createSecretBox(keyHex).open(rotated.seal('after'))).toBe('after');
    expect(() => createSecretBox(previousKey).open(rotated.seal('after'))).toThrow(/sealed with another key/);
  });

  it('seals again under the current key only what opens only under a previous one', () => {
    const previousKey = randomBytes(32).toString('hex');
    const rotated = createSecretBox(keyHex, [previousKey]);
    const again = rotated.reseal(createSecretBox(previousKey).seal('old'));
    expect(again).not.toBeNull();
    expect(createSecretBox(keyHex).open(again!)).toBe('old');
    expect(rotated.reseal(rotated.seal('current'))).toBeNull();
    expect(rotated.reseal(createSecretBox(randomBytes(32).toString('hex')).seal('foreign'))).toBeNull();
    // Without previous keys there is nothing to move from.
    expect(createSecretBox(keyHex).reseal(createSecretBox(previousKey).seal('old'))).toBeNull();
  });

  it('rejects malformed sealed values and keys', () => {
    const box = createSecretBox(keyHex);
    expect(() => box.open('plain-text-secret')).toThrow(/not a sealed secret/);
    expect(() => box.open('v2:a:b:c')).toThrow(/not a sealed secret/);
    expect(() => createSecretBox('abcd')).toThrow(/64 hex characters/);
    expect(() => createSecretBox('z'.repeat(64))).toThrow(/64 hex characters/);
    expect(() => createSecretBox(keyHex, ['abcd'])).toThrow(/64 hex characters/);
  });
});
