import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * A parallel step whose long-named branch waits 5 minutes in backoff (real clock, so it stays
 * waiting) beside one that has finished: the run's actions, the countdown and every gap label.
 */
const WAITING_PARALLEL = `# One branch rate limited and waiting, one done.
agent assistant:
  runtime: "fake"

parallel:
  fetch_every_open_issue_of_the_repository_with_its_labels = session: assistant
    prompt: "Fetch every open issue of the repository with its labels"
    retry: 3
    backoff: "fixed"
    delay: "5m"
    simulate: "rate_limit, ok"
  summarise = session: assistant
    prompt: "Summarise the release notes"
    simulate: "ok:notes"
`;

const WIDTH = 900;

/** Every element the locator matches lies inside the viewport horizontally. */
async function insideViewport(locator: Locator): Promise<Array<{ text: string; left: number; right: number }>> {
  return locator.evaluateAll((els, width) => {
    return els
      .map((e) => ({ text: (e.textContent ?? '').trim(), left: e.getBoundingClientRect().left, right: e.getBoundingClientRect().right }))
      .filter((r) => r.left < 0 || r.right > width);
  }, WIDTH);
}

/** Elements whose text does not fit their box (scrollWidth > clientWidth): cut labels. */
async function clipped(locator: Locator): Promise<string[]> {
  return locator.evaluateAll((els) =>
    els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => `${(e.textContent ?? '').trim()} (${e.scrollWidth} > ${e.clientWidth})`),
  );
}

async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

describe('layout at 900 px wide', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'nightly_issue_synchronisation_with_parallel_branches_waiting.prose': WAITING_PARALLEL } });
    browser = await launchBrowser();
    app = await openApp(browser, server);
    await app.page.setViewportSize({ width: WIDTH, height: 800 });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('keeps the run actions on screen and the countdown and gap labels whole', async () => {
    const { page } = app;
    const done = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    await server.waitForRun(done, ['completed']);
    const waiting = await server.startRun('user/nightly_issue_synchronisation_with_parallel_branches_waiting.prose');

    await app.go('#/runs');
    await page.locator(`[data-run-id="${waiting}"]`).waitFor();
    const row = page.locator(`[data-run-id="${waiting}"]`);
    await row.locator('.cell-actions button', { hasText: 'Cancel' }).waitFor();
    // The retrying badge (a countdown) appears once the first attempt failed.
    await row.locator('.cell-status .badge', { hasText: /retrying in \d+m \d\ds/ }).waitFor();
    await app.screenshot('layout-900-runs');
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    expect(await insideViewport(row.locator('button'))).toEqual([]);
    expect(await clipped(row.locator('.cell-status, .cell-status .badge'))).toEqual([]);
    const doneRow = page.locator(`[data-run-id="${done}"]`);
    expect(await clipped(doneRow.locator('.cell-num:visible, .cell-flow, .run-duration > *'))).toEqual([]);
    // Secondary columns give way; the ones an operator acts on stay.
    expect(await page.locator('.grid-header .cell-id').isVisible()).toBe(false);
    expect(await page.locator('.grid-header .cell-status').isVisible()).toBe(true);

    await app.go(`#/runs/${waiting}`);
    const countdown = page.locator('.tl-waiting');
    await countdown.waitFor();
    await app.screenshot('layout-900-run-waiting');
    const actions = page.locator('.run-header .run-actions button');
    expect(await actions.count()).toBeGreaterThan(0);
    expect(await insideViewport(actions)).toEqual([]);
    expect(await insideViewport(countdown.locator('button'))).toEqual([]);
    expect(await countdown.locator('time').textContent()).toMatch(/^in \d+m \d\ds$/);
    expect(await clipped(page.locator('.tl-waiting, .tl-waiting > *, .tl-waiting time, .run-header .badge'))).toEqual([]);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    // A long task name wraps inside its column (never widening it) and its tooltip names the branch.
    const name = page.locator('.tl-row[data-task-id="1:0"] .tl-name');
    expect(await clipped(name)).toEqual([]);
    expect(await name.getAttribute('title')).toContain('parallel branch 1 of 2 in step 1');
    expect(await page.locator('.tl-row[data-task-id="1:0"] .seg-backoff').getAttribute('title')).toMatch(/fixed 5m, retry 1 of 3; next attempt at \d{4}-/);

    await app.go(`#/runs/${done}`);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    await page.locator('.tl-row[data-task-id="1:0"] .seg-backoff').nth(2).waitFor();
    await app.screenshot('layout-900-run-done');
    expect(await clipped(page.locator('.seg-backoff .seg-label'))).toEqual([]);
    expect(await page.locator('.tl-row[data-task-id="1:0"] .seg-backoff').nth(2).getAttribute('aria-label')).toMatch(
      /^rate limit → exponential 30s·2ⁿ = 2m, retry 3 of 4; next attempt at /,
    );
    expect(await insideViewport(page.locator('.run-header .run-actions button'))).toEqual([]);

    await app.go('#/errors');
    await page.locator('.chart-bar').first().waitFor();
    // recharts draws the four charts a frame after the numbers: wait for every one.
    await expect.poll(() => page.locator('.chart-card svg.recharts-surface').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(4);
    await app.screenshot('layout-900-errors');
    await page.locator('.chart-card').last().scrollIntoViewIfNeeded();
    await app.screenshot('layout-900-errors-series');
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    // Every axis label lies inside its chart's drawing area.
    const labels = page.locator('.chart-card svg.recharts-surface text');
    const outside = await labels.evaluateAll((texts) =>
      texts.flatMap((t) => {
        const svg = (t as SVGElement).ownerSVGElement?.getBoundingClientRect();
        const r = t.getBoundingClientRect();
        return svg && (r.left < svg.left - 0.5 || r.right > svg.right + 0.5 || r.top < svg.top - 0.5 || r.bottom > svg.bottom + 0.5)
          ? [t.textContent ?? '']
          : [];
      }),
    );
    expect(await labels.count()).toBeGreaterThan(0);
    expect(outside).toEqual([]);

    await page.emulateMedia({ colorScheme: 'dark' });
    await app.screenshot('layout-900-errors-dark');
    await app.go(`#/runs/${done}`);
    await page.locator('.tl-row[data-task-id="1:0"] .seg-attempt').nth(3).waitFor();
    await app.screenshot('layout-900-run-done-dark');
    // The dark theme's bar labels are dark on the bright bars (4.5:1 is checked in timeline-colors.test.ts).
    expect(
      await page
        .locator('.tl-row[data-task-id="1:0"] .seg-attempt')
        .first()
        .evaluate((e) => getComputedStyle(e).color),
    ).toBe('rgb(16, 19, 26)');
    await app.go(`#/runs/${waiting}`);
    await countdown.waitFor();
    await app.screenshot('layout-900-run-waiting-dark');
    expect(app.problems).toEqual([]);
  });
});
