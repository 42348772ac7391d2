import { createHmac, hkdfSync } from 'node:crypto';

/** A user id as suppressions and the audit trail keep it: never the id itself. */
export type UserHasher = (projectId: number, userId: string) => string;

/**
 * HMAC-SHA256 of `<project id>:<user id>` under a key derived from SECRETS_KEY (HKDF, its own
 * label, so it is never the key that seals webhook secrets). Keyed, so a leaked table cannot be
 * matched against a list of candidate ids (a plain hash of an email address can); per project, so
 * the same person in two projects does not link. Deterministic, so a later batch naming the id
 * finds its suppression. Rotating SECRETS_KEY would orphan the stored hashes (docs/privacy.md).
 */
export function createUserHasher(secretsKeyHex: string): UserHasher {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(secretsKeyHex, 'hex'), Buffer.alloc(0), 'user-id-hash:v1', 32),
  );
  return (projectId, userId) => createHmac('sha256', key).update(`${projectId}:${userId}`, 'utf8').digest('hex');
}
