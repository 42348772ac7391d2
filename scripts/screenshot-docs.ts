/**
 * Writes docs/images/api-docs.png: the reference page of a running gateway, as headless chromium
 * renders it. `npx tsx scripts/screenshot-docs.ts [gateway URL]` (default http://127.0.0.1:8080,
 * what `npm start` listens on).
 */
import { mkdirSync } from 'node:fs';
import { launchChromium, RENDERED_OPERATIONS } from '../test/support/docs-browser.js';

const gateway = (process.argv[2] ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const target = new URL('../docs/images/api-docs.png', import.meta.url);

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  await page.goto(`${gateway}/docs`);
  for (const id of RENDERED_OPERATIONS) await page.locator(`#${id}`).waitFor({ timeout: 30_000 });
  mkdirSync(new URL('.', target), { recursive: true });
  await page.screenshot({ path: target.pathname, fullPage: false });
  console.log(`wrote ${target.pathname}`);
} finally {
  await browser.close();
}
