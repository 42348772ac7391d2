import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, stack, type Tenant } from '../support/api.js';
import { launchChromium } from '../support/docs-browser.js';
import { axeViolations } from '../support/axe.js';

/**
 * The console's Labels page (issue 47) in Debian's headless chromium: a label taught from the
 * form, its training and quality read on its page, a text tried, an example added (version 2) and
 * one removed (version 3); every view checked by axe-core; no console error, no request elsewhere.
 */

const MATCHING = [
  'My parcel still has not arrived after two weeks.',
  'The courier marked it delivered but nothing came.',
  'Tracking has not moved in nine days.',
  'My order went to the wrong address.',
  'The box arrived crushed and the vase broken.',
  'Nobody came in the delivery slot, again.',
];
const OTHER = [
  'Love the new colours this spring.',
  'How do I change my email address?',
  'Prices went up again, too much.',
  'Do you have this in a medium?',
  'Please add Apple Pay.',
  'The app logs me out when I switch tabs.',
];

describe('the Labels page in headless chromium', () => {
  let browser: Browser;
  let t: Tenant;
  let origin: string;
  beforeAll(async () => {
    origin = new URL(stack().gatewayUrl).origin;
    t = await newTenant('console-labels');
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('teaches, measures, tries and corrects a label', { timeout: 240_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith('data:') && new URL(url).origin !== origin) outside.push(url);
    });
    const violations: Record<string, string[]> = {};
    const audit = async (name: string) => {
      const v = await axeViolations(page);
      if (v.length) violations[name] = v;
    };
    try {
      await page.goto(`${origin}/console`);
      await page.getByLabel('API key').fill(t.key);
      await page.getByLabel('API key').press('Enter');
      await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Labels' }).click();
      await page.getByRole('heading', { name: 'Labels', level: 1 }).waitFor();
      await expect.poll(() => page.getByText('No labels yet.').count()).toBe(1);
      await audit('labels-empty');

      // Too few examples: the API's error shown, nothing created.
      await page.getByLabel('Name (a-z, 0-9, _ and -)').fill('delivery_problem');
      await page.getByLabel(/^Matching examples/).fill(MATCHING.slice(0, 3).join('\n'));
      await page.getByLabel(/^Non-matching examples/).fill(OTHER.join('\n'));
      await page.getByRole('button', { name: 'Teach it' }).click();
      await expect
        .poll(() => page.getByRole('alert').innerText(), { timeout: 30_000 })
        .toContain('at least 5 matching');
      await page.getByLabel(/^Matching examples/).fill(MATCHING.join('\n'));
      await page.getByRole('button', { name: 'Teach it' }).click();
      await page.getByRole('heading', { name: 'delivery_problem', level: 1 }).waitFor();
      // Trained in the background; the page polls until it is ready and shows its quality.
      await expect.poll(() => page.locator('.state').innerText(), { timeout: 120_000 }).toContain('ready (version 1)');
      await expect.poll(() => page.getByText(/F1 \d\.\d\d \(precision/).count()).toBe(1);
      await expect.poll(() => page.getByText(/rough until each side has 20/).count()).toBe(1);
      await audit('label');

      await page
        .getByLabel(/^Texts to score/)
        .fill('Where is my parcel? It is a week late.\nHow do I reset my password?');
      await page.getByRole('button', { name: 'Score' }).click();
      const scores = page.getByRole('table', { name: 'Scores' });
      // Scoring embeds the texts: on a loaded machine that takes longer than expect.poll's default second.
      await expect.poll(() => scores.locator('tbody tr').count(), { timeout: 30_000 }).toBe(2);
      expect(await scores.locator('tbody tr').nth(0).innerText()).toMatch(/yes$/);
      expect(await scores.locator('tbody tr').nth(1).innerText()).toMatch(/no$/);
      await audit('label-tried');

      await page.getByLabel('Add an example').fill('The delivery was quick, thanks!');
      await page.getByLabel('Matches the label').selectOption('false');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect
        .poll(() => page.getByRole('heading', { name: 'Examples (version 2)' }).count(), { timeout: 30_000 })
        .toBe(1);
      const examples = page.getByRole('table', { name: 'Examples' }).locator('tbody tr');
      await expect.poll(() => examples.count()).toBe(13);
      await examples.nth(0).getByRole('button', { name: 'Remove' }).click();
      await expect
        .poll(() => page.getByRole('heading', { name: 'Examples (version 3)' }).count(), { timeout: 30_000 })
        .toBe(1);
      await expect.poll(() => examples.count()).toBe(12);
      await expect.poll(() => page.locator('.state').innerText(), { timeout: 120_000 }).toContain('ready (version 3)');

      await page.getByRole('link', { name: 'All labels' }).click();
      await expect
        .poll(() => page.locator('tbody tr').first().innerText())
        .toMatch(/delivery_problem\s+ready \(version 3\)/);
      await audit('labels');
      expect(violations).toEqual({});
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
      expect(outside).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
