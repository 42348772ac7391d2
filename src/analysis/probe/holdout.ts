import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { polarity, type Reading } from './capability.js';
import type { CapabilityResult, Predict, ProbeReport } from './runner.js';

/**
 * The held-out probe (data/probe-holdout): 360 sentences, 30 for each of twelve capabilities,
 * written on 2026-12-02 by a helper that was shown none of this repository (not the corpus, the
 * probe's templates or the composition rules), each with what it must not be read as. Half of each
 * capability (`dev`) was looked at while writing composition.ts; the other half (`test`) was not,
 * and is the figure to quote: the closest thing here to the hidden probe's different templates.
 * A second set, written on 2026-12-03 by two more such helpers for the six capabilities that failed
 * most (negations and denied intentions, factual complaints): `dev2` (125, read while heads v20's
 * rules were written) and `test2` (144, never read: rates only).
 * A third set, written on 2026-12-03 by another such helper for all twelve capabilities, half of
 * each short and plain like a tester's templates and half natural (posts, chats, emails, reviews,
 * tickets) across many trades: `dev3` (240, read while heads v21's rules were written) and `test3`
 * (240, never read). `dev4` (200, read): one more helper's sarcasm, negations, denied refunds and
 * upgrades and factual complaints, with no test sibling. A fourth set (2026-12-03, one more such
 * helper): fifteen capabilities, the twelve and intensified negative and positive and noisy
 * negative, 40 each across many trades and registers: `dev5` (300, read) and `test4` (300, never read).
 * A fifth set (2026-12-03) is template-generated, the way the hidden probe is: one more such helper
 * wrote its own templates and word lists (ten templates a capability, the same fifteen) and a
 * seeded script filled them: `dev6` (300) and `test5` (300, never read). `test6` (360, never read):
 * one more helper's own templates (fourteen or fifteen a capability, 24 cases each), with no read
 * sibling, so it measures templates nobody here has seen, as the hidden probe does. `dev7` and
 * `dev8` (280 each, read): two more helpers' templates for the capabilities test6 still failed most
 * (sarcasm, polite complaints, denied refunds and upgrades, churn statements and more). `dev9`
 * (400, read): one more helper's templates for what test6 still failed (sarcasm and polite
 * complaints 80 each). `test7` and `test8` (360 each, never read): two more helpers' own templates for
 * the fifteen capabilities, measured before the rules written from dev9. `dev-posts` and
 * `test-posts` (225 each, the second never read): customer posts written by hand by one more helper,
 * 75 of each polarity (expect `neutral` too), a stand-in for the real posts of the hidden check.
 * `dev10` (200 sarcasm), `dev11` (negated negatives, contrasts ending positive, negated positives)
 * and `dev12` (sincere praise that mentions a problem, and neutral requests: a guard against false
 * alarms of the sarcasm and polite-complaint rules), all read. `dev14`, `test10` and `dev15`, and
 * `dev16` (denied upgrades, refunds and recommendations, and upgrade statements), `dev17` (contrasts
 * both ways and negated negatives, many long), `dev18` (negated negatives in many forms, and
 * complaints that use a negator), `dev19` (denied churn and refunds, churn statements)
 * and `test11` (never read: seven capabilities), `dev20` and `dev21` (churn statements, negated
 * negatives, sincere praise, negated churn or contrasts ending negative) and `test12` (never read:
 * sarcasm against sincere praise, negated negatives, churn statements, contrasts ending negative) and
 * `test13` (never read: sixteen capabilities) and `dev22` (denied upgrades, refunds, recommendations and
 * churn, with upgrade statements and refund requests as guards): more helpers' own templates
 * (data/probe-holdout/README.md). `test14` (never read: sixteen capabilities, one more helper's own
 * templates and hand-written lines, measured first on the code it was written against) and `dev23`
 * (read: sincere praise with sarcasm's surface, churn statements, factual complaints, upgrade
 * statements and denials) and `dev24` (read: polite complaints of a new writer, factual complaints,
 * and polite requests and thanks as guards) and `dev25` (read: denied upgrades, refunds and churn,
 * factual complaints, with upgrade statements and refund requests as guards). `test15` (never read:
 * the same message typed clean and typed in haste, six capabilities, measured first on the code it
 * was written against). `test16` (never read: seventeen capabilities, one more helper's own
 * templates, measured first on the code it was written against), `dev26` (read: churn statements
 * told by what was done, factual complaints, staying and neutral guards, public posts) and `dev27`
 * (read: negated positives, contrasts ending negative, with guards). `dev28` (read: denied upgrades
 * and leaving, polite complaints, with upgrade and churn statements and polite thanks as guards).
 * `test17` (never read: eighteen capabilities, one more helper's own templates and hand-written
 * lines, measured first on the code it was written against). `dev29` and `dev30` (read) and `test18`
 * (never read): three more helpers' polite complaints (many told without a negative word), denied
 * upgrades and upgrade statements, with polite thanks and requests as guards; `dev30` and `test18`
 * from one prompt, so that what `dev30` teaches is measured on `test18`.
 */
export type HoldoutHalf =
  | 'dev'
  | 'test'
  | 'dev2'
  | 'test2'
  | 'dev3'
  | 'test3'
  | 'dev4'
  | 'dev5'
  | 'test4'
  | 'dev6'
  | 'test5'
  | 'test6'
  | 'dev7'
  | 'dev8'
  | 'dev9'
  | 'dev10'
  | 'dev11'
  | 'dev12'
  | 'test7'
  | 'test8'
  | 'test9'
  | 'dev13'
  | 'dev14'
  | 'dev15'
  | 'test10'
  | 'dev16'
  | 'dev17'
  | 'dev18'
  | 'dev19'
  | 'test11'
  | 'test12'
  | 'test13'
  | 'dev20'
  | 'dev21'
  | 'dev22'
  | 'test14'
  | 'test15'
  | 'test16'
  | 'test17'
  | 'dev26'
  | 'dev27'
  | 'dev28'
  | 'dev29'
  | 'dev30'
  | 'test18'
  | 'dev23'
  | 'dev24'
  | 'dev25'
  | 'dev-posts'
  | 'test-posts';
/** Every half, for the command line. */
export const HOLDOUT_HALVES: readonly HoldoutHalf[] = [
  'test',
  'dev',
  'test2',
  'dev2',
  'test3',
  'dev3',
  'dev4',
  'dev5',
  'test4',
  'dev6',
  'test5',
  'test6',
  'dev7',
  'dev8',
  'dev9',
  'dev10',
  'dev11',
  'dev12',
  'test7',
  'test8',
  'test9',
  'dev13',
  'dev14',
  'dev15',
  'test10',
  'dev16',
  'dev17',
  'dev18',
  'dev19',
  'test11',
  'test12',
  'test13',
  'dev20',
  'dev21',
  'dev22',
  'test14',
  'test15',
  'test16',
  'test17',
  'dev23',
  'dev24',
  'dev25',
  'dev26',
  'dev27',
  'dev28',
  'test18',
  'dev29',
  'dev30',
  'dev-posts',
  'test-posts',
];
/** The halves whose failing sentences are never shown (nobody tunes on them). */
export const UNREAD_HALVES: readonly HoldoutHalf[] = [
  'test',
  'test2',
  'test3',
  'test4',
  'test5',
  'test6',
  'test7',
  'test8',
  'test9',
  'test10',
  'test11',
  'test12',
  'test13',
  'test14',
  'test15',
  'test16',
  'test17',
  'test18',
  'test-posts',
];

interface HoldoutCase {
  capability: string;
  text: string;
  expect: string;
}

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../data/probe-holdout');

export function loadHoldout(half: HoldoutHalf): HoldoutCase[] {
  const file = path.join(DIR, `${half}.jsonl`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      const c = JSON.parse(l) as HoldoutCase;
      if (typeof c.text !== 'string' || typeof c.capability !== 'string' || typeof c.expect !== 'string')
        throw new Error(`${file}:${i + 1}: needs capability, text and expect`);
      return c;
    });
}

/** Whether a reading fails what the sentence expects: a polarity class, or an intention present or absent. */
export function failsExpectation(expect: string, r: Reading): boolean {
  const p = polarity(r);
  if (expect === 'not positive') return p === 'positive';
  if (expect === 'not negative') return p === 'negative';
  if (expect === 'negative' || expect === 'positive' || expect === 'neutral') return p !== expect;
  if (expect.startsWith('no ')) return r.intentions.includes(expect.slice(3));
  return !r.intentions.includes(expect);
}

/** What a failing case is, in words: "read positive", "upgrade flagged", "not negative", "churn missed". */
export function failureOf(expect: string): string {
  if (expect.startsWith('not ')) return `read ${expect.slice(4)}`;
  if (expect.startsWith('no ')) return `${expect.slice(3)} flagged`;
  if (expect === 'negative' || expect === 'positive' || expect === 'neutral') return `not ${expect}`;
  return `${expect} missed`;
}

const shown = (text: string, r: Reading) =>
  `"${text}" → ${r.sentiment >= 0 ? '+' : ''}${r.sentiment.toFixed(2)}${r.intentions.length ? ` [${r.intentions.join(', ')}]` : ''}`;

/** The held-out half through any reader, as a probe report (every capability an MFT). */
/** `examples`: how many failing sentences to keep per capability (3 by default). */
export async function runHoldout(predict: Predict, half: HoldoutHalf, examples = 3): Promise<ProbeReport> {
  const cases = loadHoldout(half);
  const readings = await predict(cases.map((c) => c.text));
  const names = [...new Set(cases.map((c) => c.capability))];
  const capabilities: CapabilityResult[] = names.map((name) => {
    const mine = cases.map((c, i) => ({ c, r: readings[i] })).filter(({ c }) => c.capability === name);
    const failing = mine.filter(({ c, r }) => failsExpectation(c.expect, r));
    return {
      name,
      kind: 'MFT',
      failure: failureOf(mine[0].c.expect),
      cases: mine.length,
      failures: failing.length,
      rate: failing.length / mine.length,
      examples: failing.slice(0, examples).map(({ c, r }) => shown(c.text, r)),
    };
  });
  const failures = capabilities.reduce((n, c) => n + c.failures, 0);
  return { capabilities, cases: cases.length, failures, rate: failures / cases.length };
}

/** The halves whose sentences were read while rules were written (every half not in UNREAD_HALVES). */
export const READ_HALVES: readonly HoldoutHalf[] = HOLDOUT_HALVES.filter((h) => !UNREAD_HALVES.includes(h));

/** A pool of halves for one figure: the read halves, or the never-read ones (the figure to quote). */
export type HoldoutPool = 'read' | 'never-read';
export const HOLDOUT_POOLS: readonly HoldoutPool[] = ['read', 'never-read'];
export const poolHalves = (pool: HoldoutPool) => (pool === 'read' ? READ_HALVES : UNREAD_HALVES);

/** The hidden probe's bar: no capability may fail more than this share of its cases. */
export const CAPABILITY_BAR = 0.2;

/** One half's capability over a rate (CAPABILITY_BAR by default). */
export interface CapabilityOver {
  half: HoldoutHalf;
  name: string;
  failures: number;
  cases: number;
}

/**
 * Many halves' reports as one: per capability name, cases and failures summed over the halves that
 * have it (in order of first appearance), and every single half's capability whose rate is over
 * `bar`, since a capability can pass pooled while one writer's set of it fails. No examples: a pool
 * holds never-read halves, whose failing sentences are not shown.
 */
export function poolReports(
  reports: readonly { half: HoldoutHalf; report: ProbeReport }[],
  bar = CAPABILITY_BAR,
): { pooled: ProbeReport; over: CapabilityOver[] } {
  const byName = new Map<string, CapabilityResult>();
  const over: CapabilityOver[] = [];
  for (const { half, report } of reports) {
    for (const c of report.capabilities) {
      const seen = byName.get(c.name);
      if (!seen) byName.set(c.name, { ...c, examples: [] });
      else {
        seen.cases += c.cases;
        seen.failures += c.failures;
        if (!seen.failure.split(' / ').includes(c.failure)) seen.failure += ` / ${c.failure}`;
      }
      if (c.rate > bar) over.push({ half, name: c.name, failures: c.failures, cases: c.cases });
    }
  }
  const capabilities = [...byName.values()].map((c) => ({ ...c, rate: c.cases ? c.failures / c.cases : 0 }));
  const cases = capabilities.reduce((n, c) => n + c.cases, 0);
  const failures = capabilities.reduce((n, c) => n + c.failures, 0);
  return { pooled: { capabilities, cases, failures, rate: cases ? failures / cases : 0 }, over };
}

/** Every half of a pool through one reader, pooled (poolReports). */
export async function runHoldoutPool(predict: Predict, pool: HoldoutPool, bar = CAPABILITY_BAR) {
  const reports = [];
  for (const half of poolHalves(pool)) reports.push({ half, report: await runHoldout(predict, half, 0) });
  return poolReports(reports, bar);
}
