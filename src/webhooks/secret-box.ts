/**
 * Webhook secrets are needed in clear text to sign requests, so they cannot be hashed; they are
 * encrypted at rest with AES-256-GCM instead. GCM's tag makes a modified or foreign value fail to
 * open rather than yield a wrong secret that would sign with garbage.
 *
 * Sealed format: `v1:<iv base64>:<tag base64>:<ciphertext base64>`, with a random 12-byte IV per
 * value. The version prefix leaves room to change the algorithm later. Values are sealed with the
 * current key and opened with it or any previous one (SECRETS_KEY_PREVIOUS): the tag tells which
 * key fits, so a rotation does not break the signing of webhooks whose secrets were sealed before.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * The value sealed again under the current key when it opens only under a previous one; null
   * when it needs no change (sealed under the current key) or opens under no key at all.
   */
  reseal(sealed: string): string | null;
}

const VERSION = 'v1';
// Binds the ciphertext to the format version, so a v1 payload cannot be replayed under a future format.
const AAD = Buffer.from('webhook-secret:v1');

export function createSecretBox(keyHex: string, previousKeysHex: readonly string[] = []): SecretBox {
  const [key, ...previous] = [keyHex, ...previousKeysHex].map((hex) => {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('the secrets key must be 64 hex characters (32 bytes)');
    return Buffer.from(hex, 'hex');
  });

  const seal = (plain: string): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(AAD);
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64'), tag.toString('base64'), ciphertext.toString('base64')].join(':');
  };

  return {
    seal,

    open(sealed: string): string {
      const plain = openAny(sealed, [key, ...previous]);
      // Do not echo OpenSSL's message: it says nothing useful and the cause is always one of these two.
      if (plain === undefined) throw new Error('cannot open sealed secret: it was modified or sealed with another key');
      return plain;
    },

    reseal(sealed: string): string | null {
      if (previous.length === 0 || openAny(sealed, [key]) !== undefined) return null;
      const plain = openAny(sealed, previous);
      return plain === undefined ? null : seal(plain);
    },
  };
}

/** The plain text under the first of `keys` that fits, or undefined when none does. */
function openAny(sealed: string, keys: readonly Buffer[]): string | undefined {
  const parts = sealed.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION)
    throw new Error('not a sealed secret (expected v1:iv:tag:ciphertext)');
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64'));
  if (iv.length !== 12 || tag.length !== 16) throw new Error('not a sealed secret (bad IV or tag length)');
  for (const k of keys) {
    const plain = openWith(k, iv, tag, ciphertext);
    if (plain !== undefined) return plain;
  }
  return undefined;
}

/** The plain text, or undefined when the tag does not fit (another key, or a modified value). */
function openWith(key: Buffer, iv: Buffer, tag: Buffer, ciphertext: Buffer): string | undefined {
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  decipher.setAAD(AAD);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
