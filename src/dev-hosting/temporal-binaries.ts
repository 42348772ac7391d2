import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { executableSearchPath } from '../config.js';
import { buildCacheDir, executable, goBuildToolsCached } from './go-build.js';

/** The versions tools/temporal/go.mod pins (the CLI requires this server; docker-compose.yml uses the same). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** The Go module that pins the binaries; under dist/ the build copies it to the same relative place. */
export const TOOLS_MODULE_DIR = fileURLToPath(new URL('../../tools/temporal/', import.meta.url));

export interface TemporalBinaries {
  /** `temporal`: the CLI, whose `server start-dev` is the dev server. */
  cli: string;
  /** The real server (frontend, history, matching and worker services). */
  server: string;
  /** Creates and migrates the server's PostgreSQL schemas. */
  sqlTool: string;
}

/** The cache folder: keyed by the module's go.mod and go.sum, so a change of version builds again. */
export function binariesCacheDir(moduleDir = TOOLS_MODULE_DIR): string {
  const hash = createHash('sha256');
  for (const file of ['go.mod', 'go.sum']) hash.update(readFileSync(path.join(moduleDir, file)));
  return buildCacheDir(`temporal-${TEMPORAL_CLI_VERSION}-${hash.digest('hex').slice(0, 12)}`);
}

/**
 * The CLI, the server and its SQL tool, built once by one `go build` of tools/temporal (the three
 * share nearly every package: one build compiles them once instead of twice) into the cache, with
 * the machine's Go and the module proxy only.
 */
export async function resolveTemporalBinaries(
  opts: { log?: (msg: string) => void; signal?: AbortSignal } = {},
): Promise<TemporalBinaries> {
  const [cli, server, sqlTool] = await goBuildToolsCached({
    moduleDir: TOOLS_MODULE_DIR,
    dir: binariesCacheDir(),
    binaries: [
      { built: 'temporal', as: 'temporal' },
      { built: 'server', as: 'temporal-server' },
      { built: 'sql', as: 'temporal-sql-tool' },
    ],
    what: `the Temporal CLI v${TEMPORAL_CLI_VERSION}, server v${TEMPORAL_SERVER_VERSION} and SQL tool`,
    log: opts.log ?? (() => undefined),
    signal: opts.signal,
  });
  return { cli, server, sqlTool };
}

/**
 * The `temporal` CLI: one on PATH is the user's choice and wins; otherwise ours from the cache
 * (built on first use). The SDK's own download needs the internet, so it is never used.
 */
export async function resolveTemporalCli(
  opts: { log?: (msg: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  for (const dir of executableSearchPath()) {
    if (executable(path.join(dir, 'temporal'))) return path.join(dir, 'temporal');
  }
  try {
    return (await resolveTemporalBinaries(opts)).cli;
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new Error(
      `No Temporal CLI found. Put \`temporal\` on PATH, install Go to let us build it, ` +
        `or set TEMPORAL_ADDRESS to an existing server. Cause: ${(err as Error).message}`,
    );
  }
}
