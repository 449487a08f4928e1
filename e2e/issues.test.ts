import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Issue } from '../core/service/api.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, runRow, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: resolve an issue in the Errors screen, a new occurrence makes it
 * regressed, then "N runs affected →" opens Runs filtered to the runs that hit it, with a chip
 * naming it, and back. Both screens in both themes at 1400 and 900 px, axe-clean.
 */
describe('error issues in the window', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let firstRun: string;

  beforeAll(async () => {
    server = await startServer();
    firstRun = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    await server.waitForRun(firstRun, ['completed']);
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/errors?range=all', bypassCSP: true });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  const rateLimitRow = (page: Page) => page.locator('.issues-table tbody tr', { has: page.locator('code', { hasText: 'RUNTIME_RATE_LIMIT' }) });

  /** Screenshots at 1400 and 900 px in both themes of what changed (scrolled to), and axe on each whole page. */
  async function lookAt(page: Page, name: string, changed: string): Promise<void> {
    for (const width of [1400, 900]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await page
          .locator(changed)
          .first()
          .evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await app.screenshot(`issues-${name}-${width}-${scheme}`);
        // No sideways scrolling, of the page or of the issues table (its actions stay in reach).
        const overflow = await page.evaluate(() => {
          const wrap = document.querySelector('.issues-table')?.parentElement;
          return { page: document.documentElement.scrollWidth - document.documentElement.clientWidth, issues: wrap ? wrap.scrollWidth - wrap.clientWidth : 0 };
        });
        expect(overflow, `${name} at ${width} px`).toEqual({ page: 0, issues: 0 });
        const serious = seriousOrCritical(await runAxe(page));
        expect(serious, describeViolations(`${name} at ${width} px, ${scheme}`, serious)).toEqual([]);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }

  it('resolve, regress on a new occurrence, open the runs it hit and come back', async () => {
    const { page } = app;
    const row = rateLimitRow(page);
    await row.waitFor();
    expect(await row.getByTestId('issue-status').textContent()).toBe('new');
    expect(await row.locator('.group-message').textContent()).toBe('runtime fake was rate limited: Error: <n> Too Many Requests (rate limit exceeded)');
    expect(await row.getByTestId('issue-runs').textContent()).toBe('1 run affected →');
    await lookAt(page, 'errors', '#groups-title');
    // A chart's tooltip on the dark theme: its items read in the theme's text colour, not black.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.count-chart .chart-bar').first().hover();
    await page.locator('.chart-tooltip .chart-tooltip-row').first().waitFor();
    const tooltip = seriousOrCritical(await runAxe(page));
    expect(tooltip, describeViolations('a chart tooltip, dark', tooltip)).toEqual([]);
    await page.mouse.move(0, 0);
    await page.emulateMedia({ colorScheme: 'light' });

    // Resolve: the unresolved list (the default) no longer has it; the resolved one does.
    await row.getByRole('button', { name: 'Resolve' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Issue status').selectOption('resolved');
    await page.waitForURL(/istatus=resolved/);
    await expect.poll(() => rateLimitRow(page).getByTestId('issue-status').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('resolved');
    const id = (await rateLimitRow(page).getAttribute('data-fingerprint')) as string;
    const resolved = await server.api<Issue>('GET', `/api/issues/${id}`);
    expect(resolved).toMatchObject({ status: 'resolved', changedBy: 'window' });

    // The same flow again: a new occurrence after the resolve is a regression, journaled by the server's watch.
    const secondRun = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    await server.waitForRun(secondRun, ['completed']);
    await expect.poll(async () => (await server.api<Issue>('GET', `/api/issues/${id}`)).substatus, { timeout: PAGE_TIMEOUT_MS }).toBe('regressed');
    await page.getByLabel('Issue status').selectOption('regressed');
    await expect.poll(() => rateLimitRow(page).getByTestId('issue-status').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('regressed');
    await expect.poll(() => rateLimitRow(page).getByTestId('issue-runs').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('2 runs affected →');
    await lookAt(page, 'errors-regressed', '#groups-title');

    // One click to the runs it hit: Runs filtered by the issue, a chip naming it.
    await rateLimitRow(page).getByTestId('issue-runs').click();
    await page.waitForURL(new RegExp(`#/runs\\?issue=${id}`));
    const chip = page.getByTestId('issue-filter');
    await expect
      .poll(() => chip.locator('strong').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toBe('RUNTIME_RATE_LIMIT · runtime fake was rate limited: Error: <n> Too Many Requests (rate limit exceeded)');
    await runRow(page, firstRun).waitFor();
    await runRow(page, secondRun).waitFor();
    await expect.poll(() => page.getByTestId('runs-count').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('2 runs match');
    await lookAt(page, 'runs-filtered', '#runs-title');

    // Back to the issue's page, then (forward again) the chip's × removes the filter.
    await page.getByRole('link', { name: '← Back to the issue' }).click();
    await page.waitForURL(new RegExp(`#/issues/${id}\\?`));
    await page.locator(`.issue-page[data-issue="${id}"] [data-testid="issue-status"]`).waitFor();
    await page.goBack();
    await chip.waitFor();
    await page.getByRole('button', { name: 'Remove the issue filter' }).click();
    await chip.waitFor({ state: 'detached' });
    expect(page.url()).not.toContain('issue=');
    expect(app.problems).toEqual([]);
    // Three looks at two widths in two themes (axe each time): more than the default minute on a shared machine.
  }, 240_000);
});
