import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { failureOf, HOLDOUT_HALVES, poolHalves, poolReports, READ_HALVES, UNREAD_HALVES } from './holdout.js';
import type { CapabilityResult, ProbeReport } from './runner.js';

const cap = (name: string, cases: number, failures: number, failure = 'not negative'): CapabilityResult => ({
  name,
  kind: 'MFT',
  failure,
  cases,
  failures,
  rate: failures / cases,
  examples: failures ? ['a failing sentence'] : [],
});
const report = (...capabilities: CapabilityResult[]): ProbeReport => {
  const cases = capabilities.reduce((n, c) => n + c.cases, 0);
  const failures = capabilities.reduce((n, c) => n + c.failures, 0);
  return { capabilities, cases, failures, rate: failures / cases };
};

describe('pooling the held-out sets', () => {
  it('sums each capability over the sets that have it and lists a single set over 0.20', () => {
    const { pooled, over } = poolReports([
      { half: 'test', report: report(cap('sarcasm', 15, 4, 'read positive'), cap('negated negative', 15, 1)) },
      {
        half: 'test2',
        report: report(cap('negated negative', 24, 3), cap('negated upgrade', 24, 5, 'upgrade flagged')),
      },
      { half: 'test3', report: report(cap('sarcasm', 20, 1, 'not negative')) },
    ]);
    expect(pooled.capabilities.map((c) => [c.name, c.cases, c.failures])).toEqual([
      ['sarcasm', 35, 5],
      ['negated negative', 39, 4],
      ['negated upgrade', 24, 5],
    ]);
    expect(pooled.capabilities[0].rate).toBeCloseTo(5 / 35);
    expect(pooled.capabilities[0].failure).toBe('read positive / not negative');
    expect([pooled.cases, pooled.failures]).toEqual([98, 14]);
    expect(pooled.rate).toBeCloseTo(14 / 98);
    // 4 of 15 (0.267) and 5 of 24 (0.208) are over the bar; 3 of 24 (0.125) is not.
    expect(over).toEqual([
      { half: 'test', name: 'sarcasm', failures: 4, cases: 15 },
      { half: 'test2', name: 'negated upgrade', failures: 5, cases: 24 },
    ]);
    // Pooled reports carry no failing sentences: a never-read set's are never shown.
    expect(pooled.capabilities.flatMap((c) => c.examples)).toEqual([]);
  });

  it('names a failure by what the sentence expects', () => {
    expect(['not positive', 'no upgrade', 'negative', 'churn'].map(failureOf)).toEqual([
      'read positive',
      'upgrade flagged',
      'not negative',
      'churn missed',
    ]);
  });

  it('splits the sets into read and never-read, every set in exactly one pool', () => {
    expect(poolHalves('never-read')).toEqual(UNREAD_HALVES);
    expect(poolHalves('read')).toEqual(READ_HALVES);
    expect([...READ_HALVES, ...UNREAD_HALVES].sort()).toEqual([...HOLDOUT_HALVES].sort());
    expect(READ_HALVES.filter((h) => UNREAD_HALVES.includes(h))).toEqual([]);
  });

  it(
    'npm run probe refuses an unknown set, pool or flag with exit 2 before loading the model',
    { timeout: 60_000 },
    () => {
      const probeWith = (...args: string[]) =>
        spawnSync(process.execPath, ['--import', 'tsx', 'src/bin/probe.ts', ...args], {
          encoding: 'utf8',
          timeout: 50_000,
        });
      const pool = probeWith('--holdout=all');
      expect(pool.status).toBe(2);
      expect(pool.stderr).toContain('never-read');
      // The ablations only switch a step off: "on" is the heads' own setting, so it is not a flag.
      const ablation = probeWith('--holdout=never-read', '--composition=on');
      expect(ablation.status).toBe(2);
      expect(ablation.stderr).toContain('unknown argument --composition=on');
    },
  );
});
