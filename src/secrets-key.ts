import { hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './observability/logger.js';

/**
 * SECRETS_KEY seals webhook secrets at rest (webhooks/secret-box.ts) and keys the user-id hashes
 * of suppressions and the audit trail (user-hash.ts). SECRETS_KEY_PREVIOUS lists the keys it
 * replaced: what they made is still opened and matched, nothing new is made with them.
 */
export interface SecretsKeys {
  current: string;
  /** Earlier keys, newest first (SECRETS_KEY_PREVIOUS). */
  previous: string[];
  /** Set when SECRETS_KEY is unset: the file the key was generated into (or read from). */
  generatedFile?: string;
}

/**
 * A short public name for a key: 8 bytes of HKDF under a label of its own, so it says which key
 * made a row (and lets processes compare keys) without revealing anything about the key.
 */
export function secretsKeyId(keyHex: string): string {
  return Buffer.from(hkdfSync('sha256', Buffer.from(keyHex, 'hex'), Buffer.alloc(0), 'secrets-key-id:v1', 8)).toString(
    'hex',
  );
}

/**
 * Production sets SECRETS_KEY; for the embedded defaults a random key is kept in the data folder
 * (mode 600) so secrets survive restarts. Processes sharing the folder share the key: the file is
 * published whole and only once (a hard link fails when the name exists), so two processes
 * starting at once on an empty folder both end up with the one that got there first. Processes
 * with folders of their own would each generate one: the installation check refuses all but the
 * first (secrets-key-agreement.ts).
 */
export function resolveSecretsKeys(
  configured: { current?: string; previous: string[] },
  dataDir: string,
  log: Logger,
): SecretsKeys {
  if (configured.current) return { current: configured.current, previous: configured.previous };
  const file = path.join(dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    const key = randomBytes(32).toString('hex') + '\n';
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, key, { mode: 0o600 });
    try {
      linkSync(draft, file);
      log.warn('SECRETS_KEY is not set: generated one in the data folder; set SECRETS_KEY in production', { file });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
        // A file system without hard links (some FUSE or SMB volumes): created exclusively instead;
        // a process racing this one may read it before it is whole, and then refuses to start.
        try {
          writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
      } else if (code !== 'EEXIST') throw err;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  const current = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(current)) throw new Error(`${file} does not hold a key of 64 hex characters`);
  return { current, previous: configured.previous, generatedFile: file };
}
