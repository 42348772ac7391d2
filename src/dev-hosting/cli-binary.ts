import path from 'node:path';
import { executableSearchPath } from '../config.js';
import { buildCacheDir, executable, goInstallCached } from './go-build.js';

export const TEMPORAL_CLI_VERSION = '1.5.1';

export function cacheDir(): string {
  return buildCacheDir(`temporal-${TEMPORAL_CLI_VERSION}`);
}

function onPath(name: string): string | undefined {
  for (const dir of executableSearchPath()) {
    if (executable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

/**
 * Finds the `temporal` CLI without the internet: PATH, then our cache,
 * then a build with `go install` (v1.5.1 is the newest tag without a replace directive) into the
 * cache. The SDK's own download needs the internet, so it is the user's last resort, not ours.
 */
export async function resolveTemporalCli(opts: { log?: (msg: string) => void } = {}): Promise<string> {
  const found = onPath('temporal');
  if (found) return found;
  try {
    const [cli] = await goInstallCached({
      dir: cacheDir(),
      packages: [`github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`],
      binaries: [{ built: 'temporal', as: 'temporal' }],
      what: `the Temporal CLI v${TEMPORAL_CLI_VERSION}`,
      log: opts.log ?? (() => undefined),
    });
    return cli;
  } catch (err) {
    throw new Error(
      `No Temporal CLI found. Put \`temporal\` on PATH, install Go to let us build it, ` +
        `or set TEMPORAL_ADDRESS to an existing server. Cause: ${(err as Error).message}`,
    );
  }
}
