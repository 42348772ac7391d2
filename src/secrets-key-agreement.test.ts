import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './observability/logger.js';
import { decideKey } from './secrets-key-agreement.js';
import { resolveSecretsKeys } from './secrets-key.js';

describe('decideKey', () => {
  it('records a first key, keeps its own, follows a rotation and refuses a stranger', () => {
    expect(decideKey(null, 'b', [])).toBe('record');
    expect(decideKey('b', 'b', ['a'])).toBe('keep');
    // The installation's key is among the process's previous ones: the operator rotated (or rolls back).
    expect(decideKey('a', 'b', ['a'])).toBe('rotate');
    expect(decideKey('a', 'b', [])).toBe('refuse');
    expect(decideKey('a', 'b', ['c'])).toBe('refuse');
  });
});

describe('resolveSecretsKeys', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'secrets-key-'));
  const log = createLogger('silent', {});
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses SECRETS_KEY when set, and SECRETS_KEY_PREVIOUS either way', () => {
    const keys = resolveSecretsKeys({ current: 'a'.repeat(64), previous: ['b'.repeat(64)] }, dir, log);
    expect(keys).toEqual({ current: 'a'.repeat(64), previous: ['b'.repeat(64)] });
  });

  it('generates one key into the data folder (mode 600) and reads it back on every later start', () => {
    const data = path.join(dir, 'generated');
    const first = resolveSecretsKeys({ previous: [] }, data, log);
    const file = path.join(data, 'secrets.key');
    expect(first).toEqual({ current: expect.stringMatching(/^[0-9a-f]{64}$/), previous: [], generatedFile: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveSecretsKeys({ previous: [] }, data, log).current).toBe(first.current);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.current);
  });

  it('refuses a key file that holds no key', () => {
    const data = path.join(dir, 'broken');
    resolveSecretsKeys({ previous: [] }, data, log);
    writeFileSync(path.join(data, 'secrets.key'), 'not a key\n');
    expect(() => resolveSecretsKeys({ previous: [] }, data, log)).toThrow(/does not hold a key of 64 hex characters/);
  });
});
