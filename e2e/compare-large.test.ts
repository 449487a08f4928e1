import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';
import { seedWideRun } from './support/wide-run.js';

/**
 * Journey: two 200-task runs of one flow that differ in two tasks. Compare folds the
 * tasks that are the same to a line each (no 47,000 px table), "Differences only" leaves just
 * the two, and a folded task opens on demand.
 */

const TASKS = 200;
const BEFORE = 'run_cmp_before';
const AFTER = 'run_cmp_after';

describe('comparing two 200-task runs', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('compare-large');
    const db = `${dir}/hivewatch.db`;
    const start = Date.now() - 7_200_000;
    await seedWideRun(db, { runId: BEFORE, tasks: TASKS, failures: 1, start });
    // The same run, but task 2:11 now recovers and task 2:100 fails for good.
    await seedWideRun(db, { runId: AFTER, tasks: TASKS, failures: 1, start: start + 60_000, failsForGood: (i) => (i % 4 === 3 && i !== 11) || i === 100 });
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: `#/compare/${BEFORE}/${AFTER}`, bypassCSP: true });
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('folds equal tasks, shows differences only on request, opens a folded task', async () => {
    const { page } = app;
    const table = page.getByTestId('compare-table');
    await table.waitFor();
    expect(await page.locator('.compare-toggle').textContent()).toContain(`(2 of ${TASKS + 1} tasks differ`);
    // Folded: one line per equal task; the two that differ are whole.
    expect(await table.locator('tbody[data-collapsed]').count()).toBe(TASKS + 1 - 2);
    // Every row of a task: outcome, attempts, time in attempts, attempt errors, cost, tokens, task error, output.
    expect(await table.locator('tbody[data-group="task-2:11"] tr[data-row]').count()).toBe(8);
    expect(await table.locator('tr[data-row="2:100/status"] td').allTextContents()).toEqual(['succeeded', 'failed']);
    // The table's own height (the page scrolls inside the window's main element, not the document).
    const height = (): Promise<number> => table.evaluate((el) => el.getBoundingClientRect().height);
    expect(await height()).toBeLessThan(12_000);

    await page.getByTestId('compare-differences-only').check();
    expect(await table.locator('tbody[data-group^="task-"]').evaluateAll((groups) => groups.map((g) => g.getAttribute('data-group')))).toEqual([
      'task-2:11',
      'task-2:100',
    ]);
    // Only the rows that differ (the run group keeps its differing facts too).
    expect(await table.locator('tbody[data-group="task-2:11"] tr[data-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-row')))).toEqual([
      '2:11/status',
      '2:11/errors',
      '2:11/final-error',
      '2:11/output',
    ]);
    expect(await height()).toBeLessThan(3_000);
    for (const [width, scheme] of [
      [1400, 'light'],
      [1400, 'dark'],
      [900, 'light'],
      [900, 'dark'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await app.screenshot(`compare-differences-only-${width}-${scheme}`);
      const bad = seriousOrCritical(await runAxe(page));
      expect(bad, describeViolations(`compare, differences only (${width} px, ${scheme})`, bad)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 900 });

    await page.getByTestId('compare-differences-only').uncheck();
    await table.getByRole('button', { name: /^Show shard 5 / }).click();
    expect(await table.locator('tbody[data-group="task-2:5"] tr[data-row]').count()).toBe(8);
    expect(await table.locator('tbody[data-collapsed]').count()).toBe(TASKS + 1 - 3);
    await app.screenshot('compare-folded-1400-light');
    const bad = seriousOrCritical(await runAxe(page));
    expect(bad, describeViolations('compare, folded (1400 px, light)', bad)).toEqual([]);
    expect(app.problems).toEqual([]);
  });
});
