/**
 * `npx tsx scripts/test-times.ts <report.json>…`: per-file test times from vitest's JSON reports
 * (`--reporter=json --outputFile=…`), compared with the previous run's on this machine. `.ci/run`
 * writes one report per test command and calls this at the end: the slowest files, and every file
 * that took at least SLOWER_BY longer (and MIN_GROWTH_S more) than last time, so a file that grows
 * is seen the run it grows, not when the whole run passes a limit. The report is kept in the
 * machine's cache (~/.cache/profiling-service/test-times.json, or $XDG_CACHE_HOME), as the Temporal
 * binaries are; a first run has nothing to compare with.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SLOWER_BY = 1.25;
const MIN_GROWTH_S = 10;
const SHOWN = 15;

const reports = process.argv.slice(2).filter((f) => existsSync(f));
if (reports.length === 0) {
  console.log('test times: no report to read');
  process.exit(0);
}
const root = process.cwd();
/** Seconds per test file, keyed by its path in the repository (a file in two projects: summed). */
const now: Record<string, number> = {};
for (const file of reports) {
  const report = JSON.parse(readFileSync(file, 'utf8')) as {
    testResults?: { name: string; startTime: number; endTime: number }[];
  };
  for (const r of report.testResults ?? []) {
    const name = path.relative(root, r.name);
    now[name] = (now[name] ?? 0) + Math.max(0, (r.endTime - r.startTime) / 1000);
  }
}
const cache = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'profiling-service');
const store = path.join(cache, 'test-times.json');
const before = existsSync(store)
  ? (JSON.parse(readFileSync(store, 'utf8')) as { at: string; files: Record<string, number> })
  : undefined;

const s = (x: number) => `${x.toFixed(1)} s`;
const total = Object.values(now).reduce((a, b) => a + b, 0);
console.log(`test times: ${Object.keys(now).length} files, ${s(total)} of test time in all (files run in parallel)`);
console.log(`the ${SHOWN} slowest:`);
for (const [name, secs] of Object.entries(now)
  .sort((a, b) => b[1] - a[1])
  .slice(0, SHOWN))
  console.log(
    `  ${s(secs).padStart(9)}  ${name}${before?.files?.[name] ? `  (last run ${s(before.files[name])})` : ''}`,
  );
if (before) {
  const grown = Object.entries(now).filter(
    ([name, secs]) =>
      before.files[name] && secs >= before.files[name] * SLOWER_BY && secs - before.files[name] >= MIN_GROWTH_S,
  );
  console.log(
    grown.length
      ? `slower than the last run (${before.at}) by ${Math.round((SLOWER_BY - 1) * 100)}% and ${MIN_GROWTH_S} s or more:`
      : `no file slower than the last run (${before.at}) by ${Math.round((SLOWER_BY - 1) * 100)}% and ${MIN_GROWTH_S} s`,
  );
  for (const [name, secs] of grown) console.log(`  ${s(before.files[name])} -> ${s(secs)}  ${name}`);
}
mkdirSync(cache, { recursive: true });
writeFileSync(store, JSON.stringify({ at: new Date().toISOString(), files: now }, null, 1));
