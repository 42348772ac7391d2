import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Waits until a console tab whose key stopped working is back at the key form (its next API call
 * answers 401; a click on Profiles makes one), and answers the note the form shows.
 */
export async function keyFormNote(page: Page): Promise<string> {
  let note = '';
  await expect
    .poll(
      async () => {
        if (await page.getByLabel('API key').isVisible()) {
          note = await page.getByRole('alert').innerText();
          return true;
        }
        await page.getByRole('link', { name: 'Profiles' }).click();
        return false;
      },
      { timeout: 30_000, interval: 1_000 },
    )
    .toBe(true);
  return note;
}
