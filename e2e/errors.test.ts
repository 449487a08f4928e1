import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Journey: filter errors by category, drill down to one occurrence, follow it to its run. */
describe('error explorer', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let rateLimitedRun: string;

  beforeAll(async () => {
    server = await startServer();
    rateLimitedRun = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    const flaky = await server.startRun('examples/03-flaky-tests.prose', { virtualClock: true });
    const failing = await server.startRun('examples/05-try-catch-finally.prose', { virtualClock: true });
    await server.waitForRun(rateLimitedRun, ['completed']);
    await server.waitForRun(flaky, ['completed']);
    await server.waitForRun(failing, ['failed']);
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/errors?range=all' });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('filters by category, drills into a group and an occurrence, and opens its run at the failed attempt', async () => {
    const { page } = app;
    await page.locator('.groups-table tbody tr').first().waitFor();
    await page.locator('.chart-bar').first().waitFor();
    await app.screenshot('errors-overview');

    // Category filter: in the URL, and every group left is a runtime error.
    await page.getByLabel('Filter by category').selectOption('runtime');
    await page.waitForURL(/category=runtime/);
    await page.locator('.pill, .chart-card figcaption button', { hasText: 'clear' }).first().waitFor();
    const codes = await page.locator('.groups-table tbody tr code').allTextContents();
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(code).toMatch(/^RUNTIME_/);

    // The rate-limit group → its occurrences (3 retried attempts of examples/02).
    const group = page.locator('.groups-table tbody tr', { has: page.locator('code', { hasText: 'RUNTIME_RATE_LIMIT' }) });
    // The title button selects it (the row's middle may be its "runs affected" link).
    await group.locator('button.link').click();
    await page.waitForURL(/group=/);
    const occurrences = page.locator('.occurrence');
    // Wait until the list shows that group alone (the previous list stays up while it loads).
    await page.waitForFunction(() => {
      const codes = [...document.querySelectorAll('.occurrence .occ-code')].map((e) => e.textContent);
      return codes.length === 3 && codes.every((c) => c === 'RUNTIME_RATE_LIMIT');
    });
    // The pivot places them: flow → run → task 1:0 → attempts.
    await page.locator('.pivot-tree .pivot-link', { hasText: rateLimitedRun }).waitFor();

    await occurrences.first().locator('.occurrence-line').click();
    await page.getByTestId('error-envelope').waitFor();
    await app.screenshot('errors-drilldown');
    const href = await page.getByTestId('open-run').getAttribute('href');
    expect(href).toMatch(new RegExp(`^#/runs/${rateLimitedRun}\\?task=1%3A0&attempt=\\d$`));
    const attempt = /attempt=(\d)/.exec(href ?? '')?.[1];

    // Follow it: the run opens with that task's attempt selected on the timeline.
    await page.getByTestId('open-run').click();
    await page.waitForURL(new RegExp(`#/runs/${rateLimitedRun}`));
    await page.locator('.tl-row.focused[data-task-id="1:0"]').waitFor();
    await page.locator(`.tl-row[data-task-id="1:0"] .seg-attempt.picked[data-attempt="${attempt}"]`).waitFor();
    expect(await page.locator('.picked-attempt .envelope-code').textContent()).toBe('RUNTIME_RATE_LIMIT');
    await app.screenshot('errors-followed-to-run');

    // Back keeps the filters (they live in the URL).
    await page.goBack();
    await page.waitForURL(/#\/errors\?.*category=runtime/);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.groups-table tbody tr.selected').waitFor();
    await app.screenshot('errors-drilldown-dark');
    expect(app.problems).toEqual([]);
  });

  it('zooms the series chart: the two named sliders (keyboard) or a drag select a span, "Zoom to selection" makes it the window', async () => {
    const { page } = app;
    await page.emulateMedia({ colorScheme: 'light' });
    await app.go('#/errors?range=24h');
    await page.locator('.series-chart .chart-bar').first().waitFor();
    const from = page.getByRole('slider', { name: 'Zoom from' });
    const to = page.getByRole('slider', { name: 'Zoom to' });
    // The previous answer (all time: one daily bar) stays up until the 24 h one arrives.
    await expect.poll(async () => Number(await to.getAttribute('max')), { timeout: PAGE_TIMEOUT_MS }).toBeGreaterThan(1);
    const last = Number(await to.getAttribute('max'));
    expect(await page.getByRole('button', { name: 'Zoom to selection' }).count()).toBe(0);
    // "To" one bucket back, then "from" to the end: it stops at "to" (never passes it).
    await to.focus();
    await page.keyboard.press('ArrowLeft');
    await from.focus();
    await page.keyboard.press('End');
    await expect.poll(() => from.inputValue(), { timeout: PAGE_TIMEOUT_MS }).toBe(String(last - 1));
    expect(await to.inputValue()).toBe(String(last - 1));
    const picked = (await from.getAttribute('aria-valuetext')) ?? '';
    expect(picked).toMatch(/^\d{4}-\d\d-\d\d \d\d:00$/);
    expect(await to.getAttribute('aria-valuetext')).toBe(picked);
    // The selected bucket stays drawn at full strength, the others fade.
    await app.screenshot('errors-zoom-selected');
    await page.getByRole('button', { name: 'Zoom to selection' }).click();
    await page.waitForURL(/since=\d+&until=\d+/);
    const params = new URLSearchParams(page.url().split('?')[1]);
    // One hourly bucket: from its start to its end.
    expect(Number(params.get('until')) - Number(params.get('since'))).toBe(3_600_000);
    await expect.poll(() => page.getByTestId('errors-total').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain(`between ${picked} and `);

    // The last hour in minutes (it holds this suite's errors): a drag across the bars selects too,
    // and the sliders follow it.
    await app.go('#/errors?range=1h');
    // Wait for the hour's own chart: the 24 h one (25 bars) can still be drawn while the hour
    // loads, and a drag across it at bar 20 landed on bar 49 of the 61 that replaced it (CI).
    await expect.poll(async () => Number(await to.getAttribute('max')), { timeout: PAGE_TIMEOUT_MS }).toBeGreaterThanOrEqual(59);
    await expect.poll(() => page.getByTestId('errors-total').textContent(), { timeout: PAGE_TIMEOUT_MS }).not.toMatch(/between|refreshing/);
    const buckets = page.locator('.series-chart .chart-hit');
    await buckets.nth(20).hover();
    await page.mouse.down();
    await buckets.nth(15).hover();
    await buckets.nth(10).hover();
    await page.mouse.up();
    await expect.poll(() => from.inputValue(), { timeout: PAGE_TIMEOUT_MS }).toBe('10');
    expect(await to.inputValue()).toBe('20');
    await page.getByRole('button', { name: 'Zoom to selection' }).waitFor();
    expect(app.problems).toEqual([]);
  });
});
