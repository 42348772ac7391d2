import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

// Evaluated through the DevTools protocol, which the page's content security policy does not
// govern (a <script> tag would be refused by it, as it should be).
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page as it is now (rules: WCAG 2 A and AA). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    const axe = (window as any).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } });
    return {
      passed: r.passes.map((p: any) => p.id),
      violations: r.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`),
    };
  });
  // The audit really looked: the rules for labels and contrast ran on what the page shows.
  expect(result.passed).toEqual(expect.arrayContaining(['color-contrast']));
  return result.violations;
}
