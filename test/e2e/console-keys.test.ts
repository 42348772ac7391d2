import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitForBatch, type Tenant } from '../support/api.js';
import { launchChromium } from '../support/docs-browser.js';
import { axeViolations } from '../support/axe.js';
import { keyFormNote } from '../support/console-signout.js';

/**
 * The console's API keys page and a console limited by its key (issue 48), in Debian's headless
 * chromium against the stack.
 * - With the tenant's first key (every scope): 6 sections; the keys page lists 1 key and 1 audit
 *   event; a key named in the page with 2 of the 11 scopes (`profiles:read`, `segments:read`) on
 *   the project picked in the header is made; its secret (`sps_…`) is shown once and copied with
 *   the Copy button; the API reads it back with exactly those 2 scopes and 1 project; the list
 *   has 2 keys and the trail 2 events, the newest "created" by the first key; at a phone's 390 px
 *   the page is no wider than the screen; after a reload the secret is in neither the page nor the
 *   tab's storage.
 * - Forgotten, then signed in with the new key: the first section it may open (Profiles, 1
 *   profile, no export or erase); the navigation lists exactly 2 links, Profiles and Segments;
 *   the header names the key and its 2 scopes; the segments page lists the segment made through
 *   the API but offers no way to create one, and the segment's page no Deploy and no editor;
 *   `#/keys`, `#/webhooks` and `#/settings` each say which scope the key lacks.
 * - From a second tab with the first key: revoking the first key itself waits for a tick saying
 *   it is the key in use; the new key is revoked behind its confirmation (1 key left, 3 events,
 *   the newest "revoked"), and the limited tab's next call returns it to the key form, which says
 *   the key stopped working, its storage emptied.
 * - A key with `keys` and `segments:write` on 1 project: 2 sections; its form offers 3 scopes
 *   (`segments:read`, `segments:write`, `keys`) and 1 choice of projects (this one, not all).
 * - A key with the one scope `ingest`: no navigation (0 sections), a note that it can submit
 *   batches but not read anything here.
 * Every view is checked by axe-core; the limited key is never answered 403 (the console asks
 * nothing its key cannot do); no console error but the revoked key's 401s; no request elsewhere.
 */

describe('the API keys page and a key of limited scopes in headless chromium', () => {
  let browser: Browser;
  let t: Tenant;
  let origin: string;
  beforeAll(async () => {
    origin = new URL(stack().gatewayUrl).origin;
    t = await newTenant('console-keys');
    const r = await call('POST', '/api/v1/users', {
      key: t.key,
      body: { project_id: t.projectId, users: [{ user_id: 'rita', text: 'The new reports are great, thanks!' }] },
    });
    expect(r.status).toBe(202);
    await waitForBatch(r.body.source_id);
    const made = await call('POST', `/projects/${t.projectId}/pipelines/${t.pipelineId}/segments`, {
      key: t.key,
      body: { id: 'everyone', name: 'Everyone', rule: { field: 'window_size', op: '>=', value: 1 } },
    });
    expect(made.status).toBe(201);
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('makes a key with two scopes, shows its secret once, signs in with it, revokes it; an ingest key sees nothing', async () => {
    const errors: string[] = [];
    const outside: string[] = [];
    const refused: string[] = [];
    const violations: Record<string, string[]> = {};
    const open = async (): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const page = await context.newPage();
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (r) => {
        const url = r.url();
        if (!url.startsWith('data:') && new URL(url).origin !== origin) outside.push(url);
      });
      page.on('response', (r) => r.status() === 403 && refused.push(r.url()));
      return { context, page };
    };
    const audit = async (page: Page, name: string) => {
      const v = await axeViolations(page);
      if (v.length) violations[name] = v;
    };
    const signIn = async (page: Page, key: string) => {
      await page.getByLabel('API key').fill(key);
      await page.getByLabel('API key').press('Enter');
      await page.locator('header').waitFor();
    };
    const navLinks = (page: Page) =>
      page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allInnerTexts();
    const { context: mine, page } = await open();
    const { context: admin, page: other } = await open();
    try {
      await page.goto(`${origin}/console`);
      await signIn(page, t.key);
      await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
      expect(await navLinks(page)).toEqual(['Profiles', 'Segments', 'Webhooks', 'Labels', 'Settings', 'API keys']);
      expect(await page.locator('.key-badge').innerText()).toBe('Key first key (all scopes)');

      // The keys page: the first key alone, made by the operator, and its creation in the trail.
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      const keyRows = page.getByRole('table', { name: 'API keys' }).locator('tbody tr');
      const trailRows = page.getByRole('table', { name: 'Key audit trail' }).locator('tbody tr');
      await expect.poll(() => keyRows.count()).toBe(1);
      expect(await keyRows.innerText()).toMatch(
        /^first key \(this key\)\s+sps_\S{4}…\s+every scope\s+all projects\s+the operator/,
      );
      await expect.poll(() => trailRows.count()).toBe(1);
      expect(await trailRows.innerText()).toMatch(/created\s+first key sps_\S{4}…\s+the operator/);
      // Only the scopes this key holds are offered: all 11 for the first key.
      expect(await page.locator('input[name=scope]').count()).toBe(11);
      await audit(page, 'keys');

      // A key for a dashboard: two read scopes on this project, no expiry given.
      await page.getByLabel('Name', { exact: true }).fill('Dashboard reader');
      await page.getByRole('checkbox', { name: /^profiles:read / }).check();
      await page.getByRole('checkbox', { name: /^segments:read / }).check();
      expect(await page.getByRole('radio', { name: /^Only this project: console-keys project/ }).isChecked()).toBe(
        true,
      );
      await page.getByRole('button', { name: 'Create the key' }).click();
      const secretField = page.getByLabel('Secret of the new key');
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      expect(secret).toMatch(/^sps_[A-Za-z0-9_-]{43}$/);
      expect(await secretField.getAttribute('readonly')).not.toBeNull();
      expect(await page.locator('.secret').innerText()).toContain('it will not be shown again');
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await expect.poll(() => page.locator('.secret').innerText()).toContain('Copied to the clipboard.');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      const current = await call('GET', '/api/v1/api-keys/current', { key: secret });
      expect(current.status).toBe(200);
      expect(current.body).toMatchObject({
        name: 'Dashboard reader',
        scopes: ['profiles:read', 'segments:read'],
        projects: [t.projectId],
        created_by: t.key.slice(0, 8),
        expires_at: null,
      });
      await expect.poll(() => keyRows.count()).toBe(2);
      const made = keyRows.filter({ hasText: 'Dashboard reader' });
      expect(await made.innerText()).toMatch(
        new RegExp(
          `^Dashboard reader\\s+${secret.slice(0, 8)}…\\s+profiles:read\\s+segments:read\\s+console-keys project\\s+key ${t.key.slice(0, 8)}…`,
        ),
      );
      expect(await made.innerText()).toMatch(/never\s+never\s+Revoke$/);
      await expect.poll(() => trailRows.count()).toBe(2);
      expect(await trailRows.first().innerText()).toMatch(
        new RegExp(`^.+\\s+created\\s+Dashboard reader ${secret.slice(0, 8)}…\\s+key ${t.key.slice(0, 8)}…$`),
      );
      await audit(page, 'key-created');
      // A phone's width: the wide table scrolls in its own box, the page is no wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(
        0,
      );
      await audit(page, 'key-created-phone');
      await page.setViewportSize({ width: 1280, height: 900 });

      // Shown once: a reload (or leaving the page) loses it for good, and no storage kept it.
      await page.reload();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await expect.poll(() => keyRows.count()).toBe(2);
      expect(await page.content()).not.toContain(secret);
      const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
      expect(stored).not.toContain(secret);

      // The new key in the same tab: forgotten, pasted; the first section it may open.
      await page.getByRole('button', { name: 'Forget the key' }).click();
      await page.goto(`${origin}/console`);
      await signIn(page, secret);
      await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
      expect(await navLinks(page)).toEqual(['Profiles', 'Segments']);
      expect(await page.locator('.key-badge').innerText()).toBe('Key Dashboard reader (profiles:read, segments:read)');
      await expect.poll(() => page.locator('.total').innerText()).toContain('1 profile matches');
      await page.getByRole('link', { name: 'rita' }).click();
      await page.getByRole('heading', { name: 'rita', level: 1 }).waitFor();
      await page.locator('.timeline > li').first().waitFor();
      // Export and erase need `privacy`: not offered.
      expect(await page.getByRole('button', { name: 'Export' }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: "This user's data" }).count()).toBe(0);
      await audit(page, 'limited-profile');

      // Segments: read, never created or changed with this key.
      await page.getByRole('link', { name: 'Segments' }).click();
      await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
      await expect.poll(() => page.locator('tbody tr').innerText()).toMatch(/^Everyone\s+everyone\s+draft/);
      expect(await page.getByRole('button', { name: 'New segment' }).count()).toBe(0);
      expect(await page.getByRole('form', { name: 'New segment' }).count()).toBe(0);
      expect(await page.locator('.read-only').innerText()).toBe(
        'Read only: creating a segment needs the scope segments:write, which this key lacks.',
      );
      await audit(page, 'limited-segments');
      await page.getByRole('link', { name: 'Everyone' }).click();
      await page.getByRole('heading', { name: /Everyone/, level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Refresh members' }).waitFor();
      for (const name of ['Deploy', 'Undeploy', 'Edit the rule']) {
        expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0);
      }
      expect(await page.locator('.read-only').innerText()).toContain('segments:write');
      await audit(page, 'limited-segment');

      // Sections it may not open, named in the URL: which scope it lacks, and nothing asked of the API.
      const lacks = async (hash: string, heading: string, note: string) => {
        await page.evaluate((h) => (location.hash = h), hash);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        expect(await page.locator('main .note').innerText()).toContain(note);
      };
      await lacks('#/keys', 'API keys', 'This key lacks the scope “keys” that the API keys page needs.');
      await audit(page, 'limited-keys');
      await lacks('#/webhooks', 'Webhooks', 'lacks the scope “webhooks:read”');
      await lacks('#/settings', 'Settings', 'lacks the scope “projects” or “privacy”');
      expect(await page.getByRole('table').count()).toBe(0);

      // The first key, in another tab: it may revoke itself, but only once told it is the key in use.
      await other.goto(`${origin}/console#/keys`);
      await signIn(other, t.key);
      await other.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      const rows = other.getByRole('table', { name: 'API keys' }).locator('tbody tr');
      await expect.poll(() => rows.count()).toBe(2);
      const own = rows.filter({ hasText: '(this key)' });
      await own.getByRole('button', { name: 'Revoke first key' }).click();
      const ownConfirm = own.getByRole('group', { name: 'Revoke first key?' });
      expect(await ownConfirm.getByRole('button', { name: 'Revoke the key' }).isDisabled()).toBe(true);
      await ownConfirm.getByLabel(/This is the key this console uses/).check();
      expect(await ownConfirm.getByRole('button', { name: 'Revoke the key' }).isDisabled()).toBe(false);
      await audit(other, 'revoke-own-confirm');
      await ownConfirm.getByRole('button', { name: 'Cancel' }).click();

      const limited = rows.filter({ hasText: 'Dashboard reader' });
      await limited.getByRole('button', { name: 'Revoke Dashboard reader' }).click();
      const confirm = limited.getByRole('group', { name: 'Revoke Dashboard reader?' });
      expect(await confirm.getByLabel(/This is the key this console uses/).count()).toBe(0);
      await confirm.getByRole('button', { name: 'Revoke the key' }).click();
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.innerText()).toMatch(/^first key \(this key\)/);
      const otherTrail = other.getByRole('table', { name: 'Key audit trail' }).locator('tbody tr');
      await expect.poll(() => otherTrail.count()).toBe(3);
      expect(await otherTrail.first().innerText()).toMatch(/\s+revoked\s+Dashboard reader sps_\S{4}…\s+key /);
      await audit(other, 'key-revoked');
      expect((await call('GET', '/api/v1/api-keys/current', { key: secret })).status).toBe(401);

      // The revoked key's tab: its next call sends it back to the key form, which says why.
      expect(await keyFormNote(page)).toContain('The key stopped working (revoked?): paste a valid one.');
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await audit(page, 'revoked');

      // A key that manages keys for one project offers only its own scopes (a write scope gives its
      // read) and no "all projects".
      const manager = await call('POST', '/api/v1/api-keys', {
        key: t.key,
        body: { name: 'Segment keys', scopes: ['keys', 'segments:write'], projects: [t.projectId] },
      });
      expect(manager.status).toBe(201);
      await page.goto(`${origin}/console#/keys`);
      await signIn(page, manager.body.api_key);
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      expect(await navLinks(page)).toEqual(['Segments', 'API keys']);
      expect(
        await page.locator('input[name=scope]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value)),
      ).toEqual(['segments:read', 'segments:write', 'keys']);
      expect(await page.getByRole('radio').count()).toBe(1);
      expect(await page.getByRole('radio', { name: /^All projects/ }).count()).toBe(0);
      await audit(page, 'keys-of-a-project');
      await page.getByRole('button', { name: 'Forget the key' }).click();

      // A key that only submits batches: no section at all, and a note saying what it is for.
      const ingest = await call('POST', '/api/v1/api-keys', {
        key: t.key,
        body: { name: 'CRM import', scopes: ['ingest'] },
      });
      expect(ingest.status).toBe(201);
      await page.goto(`${origin}/console`);
      await signIn(page, ingest.body.api_key);
      await page.getByRole('heading', { name: 'Nothing to show with this key', level: 1 }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
      expect(await page.locator('main').innerText()).toContain(
        'This key can submit batches of users (scope ingest) but not read anything here.',
      );
      expect(await page.locator('.key-badge').innerText()).toBe('Key CRM import (ingest)');
      await audit(page, 'ingest-only');

      expect(violations).toEqual({});
      expect(refused).toEqual([]);
      // Chromium logs each answer over 399 as a console error: the revoked key's 401s are asked for.
      expect(errors.filter((e) => !/status of 401 \(Unauthorized\)/.test(e))).toEqual([]);
      expect(errors.length).toBeGreaterThanOrEqual(1);
      expect(outside).toEqual([]);
    } finally {
      await mine.close();
      await admin.close();
    }
  }, 240_000);
});
