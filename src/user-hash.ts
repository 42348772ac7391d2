import { createHmac, hkdfSync } from 'node:crypto';
import { secretsKeyId } from './secrets-key.js';

/** A user id as suppressions and the audit trail keep it (never the id itself), and which key made it. */
export interface UserHash {
  hash: string;
  /** secretsKeyId of the SECRETS_KEY it was made with. */
  keyId: string;
}

export interface UserHasher {
  /** Under the current key: what a new row stores. */
  current(projectId: number, userId: string): UserHash;
  /** Under the current key and then every previous one: what a lookup matches. */
  all(projectId: number, userId: string): UserHash[];
}

/**
 * HMAC-SHA256 of `<project id>:<user id>` under a key derived from SECRETS_KEY (HKDF, its own
 * label, so it is never the key that seals webhook secrets). Keyed, so a leaked table cannot be
 * matched against a list of candidate ids (a plain hash of an email address can); per project, so
 * the same person in two projects does not link. Deterministic, so a later batch naming the id
 * finds its suppression. The ids are never kept, so a stored hash cannot be re-made under a new
 * key: after a rotation lookups also try the keys of SECRETS_KEY_PREVIOUS (docs/privacy.md).
 */
export function createUserHasher(currentKeyHex: string, previousKeysHex: readonly string[] = []): UserHasher {
  const keys = [currentKeyHex, ...previousKeysHex]
    .map((hex) => ({
      keyId: secretsKeyId(hex),
      key: Buffer.from(hkdfSync('sha256', Buffer.from(hex, 'hex'), Buffer.alloc(0), 'user-id-hash:v1', 32)),
    }))
    // A key listed twice (or the current one in the previous list) is tried once.
    .filter((k, i, all) => all.findIndex((o) => o.keyId === k.keyId) === i);
  const under = (k: (typeof keys)[number], projectId: number, userId: string): UserHash => ({
    hash: createHmac('sha256', k.key).update(`${projectId}:${userId}`, 'utf8').digest('hex'),
    keyId: k.keyId,
  });
  return {
    current: (projectId, userId) => under(keys[0], projectId, userId),
    all: (projectId, userId) => keys.map((k) => under(k, projectId, userId)),
  };
}
