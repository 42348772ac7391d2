import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium, headless, with everything that would call home turned off: the /docs test
 * then sees only the requests the page itself makes.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      '--no-sandbox',
    ],
  });
}

/**
 * Operations the reference page must render, as swagger-ui names their elements
 * (`operations-<tag>-<operationId>`): one per group is enough to know it read the whole document.
 */
export const RENDERED_OPERATIONS = [
  'operations-Users-identifyUsers',
  'operations-Profiles-listProfiles',
  'operations-Privacy-eraseProfile',
  'operations-Webhooks-createWebhook',
  'operations-Segments-createSegment',
  'operations-Operations-healthz',
];
