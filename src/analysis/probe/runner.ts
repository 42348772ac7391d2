import type { Kind, Reading } from './capability.js';
import { DEFAULT_PER_CAPABILITY, DEFAULT_SEED, generateProbe } from './generator.js';

/**
 * Runs the behavioural probe through any reader of texts (the trained heads, the word reader
 * alone, the HTTP API…) and counts, per capability, the cases that fail its rule.
 */

export type Predict = (texts: string[]) => Promise<Reading[]>;

export interface CapabilityResult {
  name: string;
  kind: Kind;
  /** What a failing case is. */
  failure: string;
  cases: number;
  failures: number;
  rate: number;
  /** A second rule's count and rate (sarcasm: not read negative). */
  also?: { failure: string; failures: number; rate: number };
  /** A few failing cases, as text with what was read. */
  examples: string[];
}

export interface ProbeReport {
  capabilities: CapabilityResult[];
  cases: number;
  failures: number;
  /** Failures over cases, all capabilities pooled. */
  rate: number;
}

const EXAMPLES = 3;
const BATCH = 256;

const shown = (text: string, r: Reading) =>
  `"${text}" → ${r.sentiment >= 0 ? '+' : ''}${r.sentiment.toFixed(2)}${r.intentions.length ? ` [${r.intentions.join(', ')}]` : ''}`;

export async function runProbe(
  predict: Predict,
  opts: { seed?: number; perCapability?: number } = {},
): Promise<ProbeReport> {
  const all = generateProbe(opts.seed ?? DEFAULT_SEED, opts.perCapability ?? DEFAULT_PER_CAPABILITY);
  // Each distinct text is read once, in batches.
  const texts = [
    ...new Set(all.flatMap((g) => g.cases.flatMap((c) => ('text' in c ? [c.text] : [c.base, c.variant])))),
  ];
  const read = new Map<string, Reading>();
  for (let k = 0; k < texts.length; k += BATCH) {
    const batch = texts.slice(k, k + BATCH);
    (await predict(batch)).forEach((r, j) => read.set(batch[j], r));
  }
  const of = (text: string) => read.get(text)!;

  const capabilities = all.map((g): CapabilityResult => {
    const failing: string[] = [];
    let also = 0;
    if (g.capability.kind === 'MFT') {
      const cap = g.capability;
      for (const c of g.cases as { text: string }[]) {
        if (cap.fails(of(c.text))) failing.push(shown(c.text, of(c.text)));
        if (cap.also?.fails(of(c.text))) also++;
      }
    } else {
      const cap = g.capability;
      for (const c of g.cases as { base: string; variant: string; sign: -1 | 0 | 1 }[]) {
        if (cap.fails(of(c.base), of(c.variant), c.sign))
          failing.push(`${shown(c.base, of(c.base))}  ⇒  ${shown(c.variant, of(c.variant))}`);
        if (cap.also?.fails(of(c.base), of(c.variant), c.sign)) also++;
      }
    }
    const n = g.cases.length;
    const cap = g.capability;
    return {
      name: cap.name,
      kind: cap.kind,
      failure: cap.failure,
      cases: n,
      failures: failing.length,
      rate: n ? failing.length / n : 0,
      also: cap.also ? { failure: cap.also.failure, failures: also, rate: n ? also / n : 0 } : undefined,
      examples: failing.slice(0, EXAMPLES),
    };
  });
  const cases = capabilities.reduce((a, c) => a + c.cases, 0);
  const failures = capabilities.reduce((a, c) => a + c.failures, 0);
  return { capabilities, cases, failures, rate: cases ? failures / cases : 0 };
}

/** The report as a table; with `examples`, a few failing cases under each capability. */
export function formatProbe(report: ProbeReport, opts: { examples?: boolean } = {}): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `behavioural probe (CheckList-style, src/analysis/probe): ${report.cases} cases, ${report.failures} failures, overall failure rate ${f(report.rate)}`,
    `  kind  ${'capability'.padEnd(26)} cases  fails  rate   a failure is`,
  ];
  for (const c of report.capabilities) {
    const also = c.also ? `; ${c.also.failure} ${f(c.also.rate)}` : '';
    lines.push(
      `  ${c.kind.padEnd(4)}  ${c.name.padEnd(26)} ${String(c.cases).padStart(5)}  ${String(c.failures).padStart(5)}  ${f(c.rate)}  ${c.failure}${also}`,
    );
    if (opts.examples) for (const e of c.examples) lines.push(`          e.g. ${e}`);
  }
  return lines.join('\n');
}
