import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockedAncestor } from './reachable.js';
import { startEmbeddedPostgres } from '../dev-hosting/embedded-postgres.js';

// A uid and gid that own nothing here: they get the "other" permission bits everywhere.
const STRANGER = 54_321;
const base = mkdtempSync(path.join(os.tmpdir(), 'reachable-'));
chmodSync(base, 0o755);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('blockedAncestor', () => {
  it('names the first folder another user cannot enter, and nothing when the way is open', () => {
    const closed = path.join(base, 'closed');
    mkdirSync(path.join(closed, 'clone', 'node_modules'), { recursive: true });
    chmodSync(closed, 0o700);
    expect(blockedAncestor(path.join(closed, 'clone', 'node_modules'), STRANGER, STRANGER)).toBe(closed);
    chmodSync(closed, 0o711);
    expect(blockedAncestor(path.join(closed, 'clone', 'node_modules'), STRANGER, STRANGER)).toBeUndefined();
    // The owner may enter its own 0700 folder.
    chmodSync(closed, 0o700);
    expect(blockedAncestor(path.join(closed, 'clone'), process.getuid!(), process.getgid!())).toBeUndefined();
    // A folder not created yet is judged by what exists above it.
    expect(blockedAncestor(path.join(base, 'not-yet', 'deeper'), STRANGER, STRANGER)).toBeUndefined();
  });
});

describe('embedded PostgreSQL with its data in a folder only its owner can enter (mkdtemp, /root)', () => {
  it(
    process.getuid?.() === 0
      ? 'as root: stops with one sentence saying what to do, instead of a spawn EACCES trace'
      : 'as a normal user: starts',
    { timeout: 120_000 },
    async () => {
      const closed = mkdtempSync(path.join(base, 'mkdtemp-'));
      chmodSync(closed, 0o700);
      const start = startEmbeddedPostgres({ dataDir: path.join(closed, 'data') });
      if (process.getuid?.() === 0) {
        const err = await start.then(
          () => undefined,
          (e: Error) => e,
        );
        expect(err?.message).toMatch(
          /^Running as root, the embedded PostgreSQL runs as the "postgres" user, which cannot reach the data folder .* because .*mkdtemp-\w+ is closed to other users \(mode 700\): run as a non-root user/,
        );
        expect(err?.message.split('\n')).toHaveLength(1);
      } else {
        const db = await start;
        await db.stop();
      }
    },
  );
});
