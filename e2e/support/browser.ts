import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../../bench/ui/chromium.js';
import { ROOT, type ServerHandle } from './server.js';
import { SHARED_BROWSER_ENV } from './shared-browser.js';

/**
 * The journeys' pages in Debian's Chromium. Pages collect console errors, page errors and CSP
 * violations, which a journey checks at its end.
 */

export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');

/**
 * How long a journey polls (`expect.poll`) for the page to show what an action or the server
 * changed: a fetch and a render. Vitest's default is 1 s, which a loaded machine (two busy loops
 * beside the suite) overruns; Playwright's own waits allow 30 s, and so does this.
 */
export const PAGE_TIMEOUT_MS = 30_000;

/**
 * Chromium for a journey: a connection to the one the global setup started (global-setup.ts),
 * whose `close()` closes this file's contexts and disconnects, leaving the browser to the other
 * files; a Chromium of its own when the file runs without that setup (bench/ui/chromium.ts: its
 * temp dir is removed once it is gone).
 */
export function launchBrowser(): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_ENV];
  return shared ? chromium.connect(shared) : launchChromium();
}

export interface AppPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, uncaught page errors and CSP violations seen so far. */
  problems: string[];
  /** Navigates within the app (hash route), waiting for nothing but the hash change. */
  go(hash: string): Promise<void>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * `bypassCSP`: lets a journey inject a script tag (axe-core, see axe.ts) past the window's
 * `script-src 'self'`; the CSP journeys keep it on.
 */
export async function openApp(
  browser: Browser,
  server: ServerHandle,
  options: { colorScheme?: 'light' | 'dark'; hash?: string; bypassCSP?: boolean } = {},
): Promise<AppPage> {
  const context = await browser.newContext({
    viewport: { width: 1440, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    acceptDownloads: true,
    bypassCSP: options.bypassCSP ?? false,
  });
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(`${server.url}${options.hash ?? '#/runs'}`);
  await page.locator('.topbar').waitFor();
  return {
    page,
    context,
    problems,
    async go(hash) {
      await page.evaluate((h) => {
        window.location.hash = h;
      }, hash);
    },
    async screenshot(name) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: false });
      return path;
    },
    close: () => context.close(),
  };
}

/** Rows of the runs table (virtualized: only the mounted ones). */
export function runRow(page: Page, runId: string) {
  return page.locator(`.runs-table [role="row"][data-run-id="${runId}"]`);
}
