import { describe, expect, it } from 'vitest';
import { CAPABILITIES } from './capabilities.js';
import { fillSlots } from './fill.js';
import { DEFAULT_PER_CAPABILITY, generateProbe, type Cases } from './generator.js';
import { elongated } from './perturb.js';
import { formatProbe, runProbe } from './runner.js';
import { seededRandom } from '../linear.js';

const textsOf = (g: Cases) => g.cases.map((c) => ('text' in c ? c.text : `${c.base} => ${c.variant}`));

describe('the behavioural probe generator', () => {
  const probe = generateProbe();

  it('is deterministic, and another seed draws other cases', () => {
    expect(generateProbe().map(textsOf)).toEqual(probe.map(textsOf));
    const other = generateProbe(7).map(textsOf);
    expect(other.flat().filter((t) => probe.map(textsOf).flat().includes(t)).length).toBeLessThan(
      other.flat().length / 2,
    );
  });

  it('draws the same number of cases for every capability, each of MFT, INV and DIR', () => {
    expect(new Set(CAPABILITIES.map((c) => c.name)).size).toBe(CAPABILITIES.length);
    expect(CAPABILITIES.length).toBeGreaterThanOrEqual(20);
    for (const kind of ['MFT', 'INV', 'DIR']) expect(CAPABILITIES.some((c) => c.kind === kind)).toBe(true);
    for (const g of probe)
      expect([g.capability.name, g.cases.length]).toEqual([g.capability.name, DEFAULT_PER_CAPABILITY]);
    expect(generateProbe(45, 10).every((g) => g.cases.length === 10)).toBe(true);
  });

  it('never draws a text twice in a capability, and every edit changes its base', () => {
    for (const g of probe) expect(new Set(textsOf(g)).size).toBe(g.cases.length);
    for (const g of probe) for (const c of g.cases) if ('base' in c) expect(c.variant).not.toBe(c.base);
    // A text read two ways (say, both churn and not churn) would make a rule contradict another.
    const mft = probe.flatMap((g) => (g.capability.kind === 'MFT' ? textsOf(g) : []));
    expect(new Set(mft).size).toBe(mft.length);
  });

  it('fills every slot, and uses every template of an MFT and every source of a pair test in equal shares', () => {
    for (const g of probe) {
      for (const t of textsOf(g)) expect(t).not.toMatch(/[{}]|undefined/);
      const used = new Set(g.cases.map((c) => c.template));
      if (g.capability.kind === 'MFT') {
        for (const t of g.capability.templates) expect(used.has(t), `${g.capability.name}: ${t}`).toBe(true);
        continue;
      }
      const shares = g.capability.sources.map((s) => g.cases.filter((c) => s.templates.includes(c.template)).length);
      expect(Math.max(...shares) - Math.min(...shares), g.capability.name).toBeLessThanOrEqual(2);
    }
  });

  it('gives the slots of one list different values, and refuses an unknown slot', () => {
    const random = seededRandom(1);
    for (let k = 0; k < 50; k++) {
      const s = fillSlots('{aspect} and {aspect2}', random);
      expect(s.aspect).not.toBe(s.aspect2);
    }
    expect(() => fillSlots('{nosuchlist}', random)).toThrow(/no vocabulary/);
  });

  it('elongates words as people type them', () => {
    const random = () => 0;
    expect(elongated('slow', random)).toBe('slooow');
    expect(elongated('frustrating', random)).toBe('frustratinggg');
  });
});

describe('the probe runner', () => {
  it('counts failures per capability and overall', async () => {
    // A reader that finds every text neutral and no intention.
    const report = await runProbe(async (texts) => texts.map(() => ({ sentiment: 0, intentions: [] })));
    const rate = (name: string) => report.capabilities.find((c) => c.name === name)!.rate;
    expect(rate('clear positive')).toBe(1);
    expect(rate('negated negative')).toBe(0);
    expect(rate('negated churn')).toBe(0);
    expect(rate('churn statement')).toBe(1);
    expect(rate('case change')).toBe(0);
    expect(report.capabilities.find((c) => c.name === 'sarcasm')!.also?.rate).toBe(1);
    expect(report.cases).toBe(CAPABILITIES.length * DEFAULT_PER_CAPABILITY);
    expect(report.rate).toBeCloseTo(report.failures / report.cases, 10);
    const table = formatProbe(report, { examples: true });
    expect(table).toContain('clear positive');
    expect(table).toContain('e.g. "');
  });

  it('fails an INV case when the class or the churn flag changes, and a DIR case moved the wrong way', async () => {
    // Upper case reads negative and churn; "!!!" or an intensifier lowers the value by 0.15.
    const report = await runProbe(async (texts) =>
      texts.map((t) => ({
        sentiment:
          t === t.toUpperCase()
            ? -0.5
            : /!!!|\b(very|extremely|really|incredibly|super|so|seriously|insanely) /.test(t)
              ? 0.35
              : 0.5,
        intentions: t === t.toUpperCase() ? ['churn'] : [],
      })),
    );
    const by = (name: string) => report.capabilities.find((c) => c.name === name)!;
    expect(by('case change').rate).toBeGreaterThan(0.3);
    expect(by('intensifier words').rate).toBeGreaterThan(0.3);
    expect(by('trailing URL').rate).toBe(0);
  });
});
