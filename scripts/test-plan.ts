/**
 * What `npm test` runs (scripts/test.ts), as data: kept apart from the spawning so a test can hold
 * the rules that decide whether a failure is reported.
 */
export const FIRST = ['unit', 'integration', 'e2e'];
export const BESIDE = ['analysis'];

export interface TestPlan {
  /** Whether the heads are made ready before the runs (only when there are two). */
  headsFirst: boolean;
  /** vitest arguments after `run`, each one process; `beside`: run at a lower priority. */
  runs: { args: string[]; beside: boolean }[];
}

const projects = (names: string[]) => names.flatMap((n) => ['--project', n]);

/**
 * Two processes when every argument is an option written `--name=value`; with a file filter or an
 * option of two words (whose second word would read as a filter), one process over the four tiers,
 * as `vitest run` alone runs them. A report file named for the first gets a name of its own for the
 * second (`<f minus .json>-analysis.json`): two processes must not write one file.
 */
export function planTests(args: string[]): TestPlan {
  if (args.some((a) => !a.startsWith('--') || !a.includes('=')))
    return { headsFirst: false, runs: [{ args: [...projects([...FIRST, ...BESIDE]), ...args], beside: false }] };
  const besideArgs = args.map((a) => (a.startsWith('--outputFile') ? `${a.replace(/\.json$/, '')}-analysis.json` : a));
  return {
    headsFirst: true,
    runs: [
      { args: [...projects(FIRST), ...args], beside: false },
      { args: [...projects(BESIDE), ...besideArgs], beside: true },
    ],
  };
}

/** The exit code of `npm test`: the first failure's, so a failing process is never hidden by a passing one. */
export const combinedExit = (codes: number[]) => codes.find((c) => c !== 0) ?? 0;
