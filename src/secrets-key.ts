import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from './observability/logger.js';

/**
 * SECRETS_KEY encrypts webhook secrets at rest. Production sets it; for the embedded defaults a
 * random key is kept in the data folder (mode 600) so secrets survive restarts.
 */
export function resolveSecretsKey(configured: string | undefined, dataDir: string, log: Logger): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  log.warn('SECRETS_KEY is not set: generated one in the data folder; set SECRETS_KEY in production', { file });
  return key;
}
