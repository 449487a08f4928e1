import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';
import { FIRST_ROWS } from '../renderer/lib/use-rows-in-stages.js';

/**
 * The middle of bucket `index` of the series chart's `buckets`, in page pixels: the plot runs
 * along recharts' X axis line, cut into equal bands.
 */
async function bucketPoint(page: Page, index: number, buckets: number): Promise<[number, number]> {
  const axis = await page.locator('.series-chart .recharts-xAxis .recharts-cartesian-axis-line').boundingBox();
  if (!axis) throw new Error('the series chart has no X axis drawn');
  return [axis.x + ((index + 0.5) * axis.width) / buckets, axis.y - 40];
}

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

    // The rate-limit group → its issue's page, with its occurrences (3 retried attempts of examples/02).
    const group = page.locator('.groups-table tbody tr', { has: page.locator('code', { hasText: 'RUNTIME_RATE_LIMIT' }) });
    await group.locator('a.issue-link').click();
    await page.waitForURL(/#\/issues\/[0-9a-f]+\?.*category=runtime/);
    const occurrences = page.locator('.issue-occurrences .occurrence');
    await page.waitForFunction(() => {
      const codes = [...document.querySelectorAll('.issue-occurrences .occurrence .occ-code')].map((e) => e.textContent);
      return codes.length === 3 && codes.every((c) => c === 'RUNTIME_RATE_LIMIT');
    });
    // The runs it hit: the rate-limited run.
    await page.locator(`.issue-runs-table tbody tr[data-run-id="${rateLimitedRun}"]`).waitFor();

    await occurrences.first().locator('.occurrence-line').click();
    // The opened occurrence's envelope (the page's latest occurrence has one of its own above).
    const opened = page.locator('.issue-occurrences');
    await opened.getByTestId('error-envelope').waitFor();
    await app.screenshot('errors-drilldown');
    const href = await opened.getByTestId('open-run').getAttribute('href');
    expect(href).toMatch(new RegExp(`^#/runs/${rateLimitedRun}\\?task=1%3A0&attempt=\\d$`));
    const attempt = /attempt=(\d)/.exec(href ?? '')?.[1];

    // Follow it: the run opens with that task's attempt selected on the timeline.
    await opened.getByTestId('open-run').click();
    await page.waitForURL(new RegExp(`#/runs/${rateLimitedRun}`));
    await page.locator('.tl-row.focused[data-task-id="1:0"]').waitFor();
    await page.locator(`.tl-row[data-task-id="1:0"] .seg-attempt.picked[data-attempt="${attempt}"]`).waitFor();
    expect(await page.locator('.picked-attempt .envelope-code').textContent()).toBe('RUNTIME_RATE_LIMIT');
    await app.screenshot('errors-followed-to-run');

    // Back to the issue's page, and Esc from it to the table: the filters kept (they live in the URL).
    await page.goBack();
    await page.waitForURL(/#\/issues\/[0-9a-f]+\?.*category=runtime/);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('.issue-occurrences .occurrence').first().waitFor();
    await app.screenshot('errors-drilldown-dark');
    await page.keyboard.press('Escape');
    await page.waitForURL(/#\/errors\?.*category=runtime/);
    await page.locator('.groups-table tbody tr', { has: page.locator('code', { hasText: 'RUNTIME_RATE_LIMIT' }) }).waitFor();
    expect(app.problems).toEqual([]);
  });

  it('draws a long list above the fold first and every row a moment later', async () => {
    const { page } = app;
    // Three more flaky runs: their retried attempts take the occurrences past a list's first stage.
    const flaky = [];
    for (let i = 0; i < 3; i++) flaky.push(await server.startRun('examples/03-flaky-tests.prose', { virtualClock: true }));
    for (const run of flaky) await server.waitForRun(run, ['completed']);
    // Every occurrence the screen reads (its first page of 50).
    const listed = await server.api<{ items: unknown[] }>('GET', '/api/errors?limit=50');
    expect(listed.items.length).toBeGreaterThan(FIRST_ROWS);
    // Opened afresh, so the list mounts with its answer in hand (its first render is the first stage).
    await app.go('#/errors?range=all');
    await page.reload();
    await page.waitForFunction((n) => document.querySelectorAll('.occurrence-list .occurrence').length === n, listed.items.length);
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
    const buckets = Number(await to.getAttribute('max')) + 1;
    await page.mouse.move(...(await bucketPoint(page, 20, buckets)));
    await page.mouse.down();
    await page.mouse.move(...(await bucketPoint(page, 15, buckets)));
    await page.mouse.move(...(await bucketPoint(page, 10, buckets)));
    await page.mouse.up();
    await expect.poll(() => from.inputValue(), { timeout: PAGE_TIMEOUT_MS }).toBe('10');
    expect(await to.inputValue()).toBe('20');
    await page.getByRole('button', { name: 'Zoom to selection' }).waitFor();
    expect(app.problems).toEqual([]);
  });

  it('draws the four charts with recharts once the numbers are up: values on hover, a click filters, no text measured, axe clean', async () => {
    const looked = await openApp(browser, server, { hash: '#/errors?range=all', bypassCSP: true });
    try {
      const { page } = looked;
      // Installed before the window's scripts: a reload then loads the screen cold with it watching.
      await page.addInitScript(() => {
        const w = window as unknown as { __atFirstChart?: { total: string; issues: number } };
        new MutationObserver(() => {
          if (w.__atFirstChart || !document.querySelector('.chart-card .recharts-surface')) return;
          w.__atFirstChart = {
            total: document.querySelector('[data-testid="errors-total"]')?.textContent ?? '',
            issues: document.querySelectorAll('.groups-table tbody tr').length,
          };
        }).observe(document, { subtree: true, childList: true });
      });
      await page.reload();
      await expect.poll(() => page.locator('.chart-card .recharts-surface').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(4);
      await expect.poll(() => page.locator('.chart-card .chart-pending').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);

      // Hover: a count bar shows its whole label and count, the same as the card's list says.
      const codes = page.locator('.chart-card[aria-label="Errors by code"]');
      await codes.locator('.chart-bar').first().hover();
      const tip = codes.locator('.chart-tooltip');
      await tip.waitFor();
      const title = (await tip.locator('.chart-tooltip-title').textContent()) ?? '';
      const count = (await tip.locator('.chart-tooltip-count').textContent()) ?? '';
      expect(count).toMatch(/^\d[\d,]*$/);
      expect(await codes.locator('ul.visually-hidden li').allTextContents()).toContain(`${title}: ${count}`);
      // Over time: a bar's bucket, its time and each category's count.
      await page.locator('.series-chart .chart-bar').last().hover();
      const seriesTip = page.locator('.series-chart .chart-tooltip');
      await seriesTip.waitFor();
      expect(await seriesTip.locator('.chart-tooltip-title').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
      expect(await seriesTip.locator('.chart-tooltip-row').count()).toBeGreaterThan(0);
      await looked.screenshot('errors-recharts-hover');
      // Fixed ticks, labels drawn as plain text: recharts never made its text-measuring element.
      expect(await page.evaluate(() => document.getElementById('recharts_measurement_span'))).toBeNull();

      await page.mouse.move(0, 0);
      for (const width of [1440, 900]) {
        for (const scheme of ['light', 'dark'] as const) {
          await page.setViewportSize({ width, height: 900 });
          await page.emulateMedia({ colorScheme: scheme });
          await page.locator('.charts-row').scrollIntoViewIfNeeded();
          await looked.screenshot(`errors-recharts-${width}-${scheme}`);
          await page.locator('.series-chart').scrollIntoViewIfNeeded();
          await looked.screenshot(`errors-recharts-series-${width}-${scheme}`);
          const serious = seriousOrCritical(await runAxe(page));
          expect(serious, describeViolations(`Errors with recharts at ${width} px, ${scheme}`, serious)).toEqual([]);
          expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        }
      }

      // A click on a bar filters by its key.
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.emulateMedia({ colorScheme: 'light' });
      await codes.locator('.chart-bar').first().click();
      await page.waitForURL(new RegExp(`code=${encodeURIComponent(title)}`));
      // The drawing came after the counts and the issues were on the page.
      const atFirst = await page.evaluate(() => (window as unknown as { __atFirstChart?: { total: string; issues: number } }).__atFirstChart);
      expect(atFirst?.total).toMatch(/\d/);
      expect(atFirst?.issues).toBeGreaterThan(0);
      expect(looked.problems).toEqual([]);
    } finally {
      await looked.close();
    }
  });
});
