import { describe, expect, it } from 'vitest';
import { combinedExit, planTests } from './test-plan.js';

describe('npm test plan', () => {
  it('runs analysis beside the other three tiers, each report file its own', () => {
    const plan = planTests(['--reporter=json', '--outputFile.json=/tmp/t/npm-test.json']);
    expect(plan.headsFirst).toBe(true);
    expect(plan.runs).toEqual([
      {
        args: [
          ...['--project', 'unit', '--project', 'integration', '--project', 'e2e'],
          ...['--reporter=json', '--outputFile.json=/tmp/t/npm-test.json'],
        ],
        beside: false,
      },
      {
        args: ['--project', 'analysis', '--reporter=json', '--outputFile.json=/tmp/t/npm-test-analysis.json'],
        beside: true,
      },
    ]);
  });

  it('is one process over the four tiers with a file filter or an option of two words', () => {
    for (const args of [['src/config.test.ts'], ['--reporter', 'json']]) {
      const plan = planTests(args);
      expect(plan.headsFirst).toBe(false);
      expect(plan.runs).toHaveLength(1);
      expect(plan.runs[0].args.filter((a) => a !== '--project').slice(0, 4)).toEqual([
        'unit',
        'integration',
        'e2e',
        'analysis',
      ]);
    }
  });

  it('fails when either process fails', () => {
    expect(combinedExit([0, 0])).toBe(0);
    expect(combinedExit([0, 1])).toBe(1);
    expect(combinedExit([2, 0])).toBe(2);
  });
});
