import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { RunDetail } from '../core/service/api.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { SLOW_PARALLEL } from './support/flows.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Journey: cancel a run mid-step from the Runs table: `cancelling` at once, then `cancelled`. */
describe('cancel a run mid-step', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'slow-parallel.prose': SLOW_PARALLEL } });
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows cancelling at once, then cancelled, with every task of the step cancelled', async () => {
    const { page } = app;
    const runId = await server.startRun('user/slow-parallel.prose');
    const row = runRow(page, runId);
    await row.and(page.locator('[data-status="running"]')).waitFor();
    // Mid-step: both sessions of step 1 have an attempt in flight.
    await expect
      .poll(
        async () => {
          const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
          return detail.run.status === 'running' && detail.tasks.length === 2 && detail.tasks.every((t) => t.attempts.some((a) => a.status === 'running'));
        },
        { message: 'both sessions of step 1 with an attempt in flight', timeout: 45_000, interval: 100 },
      )
      .toBe(true);

    // Record every status the row shows from now on.
    await page.evaluate((id) => {
      const seen: string[] = [];
      (window as unknown as { __statuses: string[] }).__statuses = seen;
      const scroll = document.querySelector('[data-testid="runs-scroll"]') as HTMLElement;
      const record = (): void => {
        const status = scroll.querySelector(`[data-run-id="${id}"]`)?.getAttribute('data-status');
        if (status && seen.at(-1) !== status) seen.push(status);
      };
      record();
      new MutationObserver(record).observe(scroll, { subtree: true, attributes: true, attributeFilter: ['data-status'], childList: true });
    }, runId);

    await row.getByRole('button', { name: `Cancel run ${runId}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.waitFor();
    await app.screenshot('cancel-confirm');
    await dialog.getByRole('button', { name: 'Cancel run' }).click();

    await row.and(page.locator('[data-status="cancelled"]')).waitFor();
    const statuses = await page.evaluate(() => (window as unknown as { __statuses: string[] }).__statuses);
    expect(statuses).toEqual(['running', 'cancelling', 'cancelled']);
    await app.screenshot('runs-cancelled');

    // The detail: cancelled, each task of the interrupted step cancelled, no commit.
    await row.locator('.run-link').click();
    await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor();
    const cancelledTasks = page.locator('.tl-row[data-task-id] .badge.outcome[data-status="cancelled"]');
    await cancelledTasks.nth(1).waitFor();
    expect(await cancelledTasks.count()).toBe(2);
    expect(await page.locator('.seg-attempt.outcome-cancelled').count()).toBe(2);
    await page.locator('.step-chip.step-cancelled').waitFor();
    await app.screenshot('run-cancelled-detail');
    expect(app.problems).toEqual([]);
  });
});
