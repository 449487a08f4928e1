import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Journey: a coding agent's failed check, its retry told why, the commit on the run's branch. */
describe('agent work in the retry timeline', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the failed check with its output, the retry with its feedback and commit, and the run branch', async () => {
    const { page } = app;
    // The Start panel says where the agent work happens.
    await app.go('#/flows/examples/06-agent-fixes-a-test.prose');
    expect(await page.getByTestId('flow-repo').textContent()).toMatch(/^Agent work in a fresh repository copied from .*06-scratch-repo for each run$/);
    await app.screenshot('agent-work-start-panel');
    const runId = await server.startRun('examples/06-agent-fixes-a-test.prose', { virtualClock: true });
    await app.go(`#/runs/${runId}`);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    expect(await page.getByTestId('run-branch').textContent()).toMatch(new RegExp(`^hivewatch/${runId} @ [0-9a-f]{10} \\(1 merge\\)$`));

    const row = page.locator('.tl-row[data-task-id="1:0"]');
    expect(await row.locator('.seg-attempt[data-attempt="1"]').getAttribute('title')).toContain('checks 0/1 passed · 1 file changed');
    await row.locator('.seg-attempt[data-attempt="1"]').click();
    const work = page.getByTestId('attempt-work');
    await work.waitFor();
    expect(await page.getByTestId('error-envelope').locator('.envelope-code').textContent()).toBe('VERIFICATION_CHECK_FAILED');
    const failedCheck = work.locator('li[data-check="tests"]');
    expect(await failedCheck.textContent()).toContain('check:tests');
    expect(await failedCheck.locator('pre').textContent()).toContain('FAIL: expected add 2 3 = 5, got 6');
    expect(await work.locator('.diffstat').textContent()).toContain('src/add.sh');
    await app.screenshot('agent-work-failed-check');

    await row.locator('.seg-attempt[data-attempt="2"]').click();
    await work.locator('.work-commit').waitFor();
    expect(await work.locator('li[data-check="tests"] .badge').textContent()).toBe('passed');
    expect(await work.locator('.work-feedback pre').textContent()).toContain('FAIL: expected add 2 3 = 5');
    expect(await work.locator('.work-commit code').textContent()).toMatch(/^[0-9a-f]{12}$/);
    await work.locator('.work-feedback summary').click();
    await app.screenshot('agent-work-retry-committed');
    expect(app.problems).toEqual([]);
  });
});
