/**
 * A setup file of the integration project: the Temporal CLI before a test file runs, since some
 * start dev servers of their own (test/workflows/, dev-server-orphan). On a fresh machine it is
 * built once (`go install`, a few minutes; a stack starting meanwhile shares that build,
 * src/dev-hosting/go-build.ts), here rather than in a test's hook, whose timeout it would outlast.
 * Cached, it is found at once.
 */
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';

await resolveTemporalCli({ log: (m) => console.log(m) });
