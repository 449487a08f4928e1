import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';
import { seedWideRun } from './support/wide-run.js';

/**
 * Journey: the retry timeline of a 40-task fan-out. It says it goes on past the
 * panel's edge, has a wall-time axis, zooms (buttons, keys, Ctrl-wheel), shows failed tasks
 * only, and is walked with the arrow keys from one Tab stop per task.
 */

const RUN = 'run_large_fan_out';
const TASKS = 40;

/** The row (task id) and attempt of the focused element. */
function focused(page: Page): Promise<{ task: string | null; attempt: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return { task: el?.closest<HTMLElement>('.tl-row')?.dataset.taskId ?? null, attempt: el?.dataset.attempt ?? null };
  });
}

const trackWidth = (page: Page): Promise<number> => page.locator('.tl-row[data-task-id="1:0"] .tl-track').evaluate((el) => el.getBoundingClientRect().width);

describe('the retry timeline of a large run', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('large-timeline');
    await seedWideRun(`${dir}/hivewatch.db`, { runId: RUN, tasks: TASKS, failures: 2, start: Date.now() - 7_200_000 });
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: `#/runs/${RUN}`, bypassCSP: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('cues the hidden part and labels a wall-time axis', async () => {
    const { page } = app;
    await page.locator(`.tl-row[data-task-id="2:${TASKS - 1}"]`).waitFor();
    await page.getByTestId('timeline-more-right').waitFor();
    expect(await page.locator('.tl-time-axis .tl-label').textContent()).toBe('Wall time');
    const labels = await page.getByTestId('timeline-time-axis').locator('.tl-tick').allTextContents();
    expect(labels.length).toBeGreaterThan(3);
    for (const label of labels) expect(label).toMatch(/^\d\d:\d\d:\d\d$/);
    // Wall-clock ticks of a run that may cross midnight (23:59:37 then 00:00:09): each tick is later
    // than the one before modulo a day, and together they span no more than the two hours the
    // seeded run can cover, so a tick out of order (a step back of a day, modulo) fails.
    const seconds = labels.map((label) => label.split(':').reduce((sum, part) => sum * 60 + Number(part), 0));
    const steps = seconds.slice(1).map((t, i) => (t - (seconds[i] as number) + 86_400) % 86_400);
    expect(steps.filter((step) => step === 0)).toEqual([]);
    expect(steps.reduce((sum, step) => sum + step, 0)).toBeLessThanOrEqual(7_200);
    // Scrolled to its end, nothing is hidden to the right any more.
    await page.locator('.timeline-scroll').evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await expect.poll(() => page.getByTestId('timeline-more-right').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await page.locator('.timeline-scroll').evaluate((el) => (el.scrollLeft = 0));
  });

  it('zooms with the buttons, the + and − keys and Ctrl-wheel', async () => {
    const { page } = app;
    const zoom = page.getByTestId('timeline-zoom');
    expect(await zoom.textContent()).toBe('100%');
    const fitted = await trackWidth(page);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    expect(await zoom.textContent()).toBe('200%');
    expect(Math.abs((await trackWidth(page)) - 2 * fitted)).toBeLessThanOrEqual(2);
    await page.locator('body').press('-');
    await page.locator('body').press('-');
    expect(await zoom.textContent()).toBe('50%');
    const box = await page.locator('.timeline-scroll').boundingBox();
    await page.mouse.move((box?.x ?? 0) + 400, (box?.y ?? 0) + 40);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await expect.poll(() => zoom.textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('100%');
    expect(Math.abs((await trackWidth(page)) - fitted)).toBeLessThanOrEqual(2);
  });

  it('shows failed tasks only when asked', async () => {
    const { page } = app;
    const toggle = page.getByLabel(/Failed tasks only/);
    expect(await page.locator('.failed-only').textContent()).toContain(`(${TASKS / 4} of ${TASKS + 1})`);
    await toggle.check();
    const statuses = await page
      .locator('.tl-row[data-task-id]')
      .evaluateAll((rows) => rows.map((r) => r.querySelector('[data-status]')?.getAttribute('data-status') ?? r.querySelector('.tl-meta')?.textContent ?? ''));
    expect(statuses).toHaveLength(TASKS / 4);
    for (const s of statuses) expect(s).toContain('failed');
    for (const [width, scheme] of [
      [1400, 'light'],
      [1400, 'dark'],
      [900, 'light'],
      [900, 'dark'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.locator('.timeline').scrollIntoViewIfNeeded();
      await app.screenshot(`timeline-failed-only-${width}-${scheme}`);
      const bad = seriousOrCritical(await runAxe(page));
      expect(bad, describeViolations(`timeline, failed only (${width} px, ${scheme})`, bad)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 900 });
    await toggle.uncheck();
    expect(await page.locator('.tl-row[data-task-id]').count()).toBe(TASKS + 1);
  });

  it('has one Tab stop per task and moves between attempts with the arrow keys', async () => {
    const { page } = app;
    const stops = await page.locator('.tl-row[data-task-id]').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('.seg-attempt[tabindex="0"]').length));
    expect(stops).toEqual(Array.from({ length: TASKS + 1 }, () => 1));

    await page.locator('.tl-row[data-task-id="2:0"] .seg-attempt[tabindex="0"]').focus();
    expect(await focused(page)).toEqual({ task: '2:0', attempt: '3' });
    await page.keyboard.press('Home');
    expect(await focused(page)).toEqual({ task: '2:0', attempt: '1' });
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toEqual({ task: '2:0', attempt: '2' });
    await page.keyboard.press('ArrowDown');
    expect((await focused(page)).task).toBe('2:1');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused(page)).toEqual({ task: '1:0', attempt: '1' });
    // Tab leaves the row: the next task's one stop, and back again lands where the row was left.
    await page.keyboard.press('Tab');
    expect((await focused(page)).task).toBe('2:0');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toEqual({ task: '1:0', attempt: '1' });
    // Enter picks the focused attempt for the inspector.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    expect(await focused(page)).toEqual({ task: '2:0', attempt: '3' });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.timeline-detail').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('shard 0 · attempt 3');
    await app.screenshot('timeline-keyboard-1400-light');
    expect(app.problems).toEqual([]);
  });
});
