import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Journey: pick a bundled example in Flows, start it, watch it complete in its detail and in Runs. */
describe('start an example from Flows and watch it complete', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/flows' });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('starts 01-happy-path and shows it completed, with its three tasks', async () => {
    const { page } = app;
    await page.locator('.flow-item[data-flow-id="examples/01-happy-path.prose"]').click();
    await page.locator('#flow-title', { hasText: '01-happy-path' }).waitFor();
    await app.screenshot('flows-example');
    await page.getByRole('button', { name: 'Start run' }).click();

    // The new run opens by itself and ends completed, live.
    await page.waitForURL(/#\/runs\/run_/);
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    expect(runId).toMatch(/^run_/);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    const tasks = page.locator('.tl-row[data-task-id]');
    await tasks.nth(2).waitFor();
    expect(await tasks.count()).toBe(3);
    expect(await page.locator('.tl-row[data-task-id] .badge.outcome[data-status="succeeded"]').count()).toBe(3);
    expect(await page.locator('.step-chip.step-finished').count()).toBe(3);
    // The journal ends with runCompleted (the log is virtualized: show only that type).
    await page.locator('.event-filter .chip', { hasText: 'runCompleted' }).dblclick();
    await page.locator('.event-row[data-type="runCompleted"]').waitFor();
    expect(await page.locator('.event-row').count()).toBe(1);
    await page.locator('.event-filter button', { hasText: 'Show all' }).click();
    await app.screenshot('run-completed-detail');

    // And in the Runs table.
    await page.locator('.tab', { hasText: 'Runs' }).click();
    await runRow(page, runId).and(page.locator('[data-status="completed"]')).waitFor();
    await app.screenshot('runs-with-completed');
    expect(app.problems).toEqual([]);
  });
});
