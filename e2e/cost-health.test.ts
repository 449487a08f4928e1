import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, runRow, PAGE_TIMEOUT_MS, SCREENSHOTS, type AppPage } from './support/browser.js';
import { COST_FLOWS, seedCostHistory, type CostHistory } from './support/cost-history.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * What failure costs and which flows are healthy, in the window (docs/triage.md): on a history of
 * a flow whose file checks but whose six newest runs failed, a steady flow that often recovers
 * after a retried attempt, a flow whose file no longer checks, and runs whose agent reported only
 * zeros (e2e/support/cost-history.ts):
 *
 * - the Flows list shows the failing flow as failing (newest run failed, 0 of 6, six failures,
 *   every dollar on failure) beside its "check ok" badge, the broken file as "check errors", and
 *   sorts by a column;
 * - the Errors header's cost follows an origin filter: under the origin no run failed with, it
 *   reads no failed-run spend next to "0 failures", not the unfiltered figure;
 * - a run that reported no usage shows no cost in its header nor in the Runs list;
 * - every changed screen, both themes, 1440 and 900 px: photographed, axe finds nothing serious.
 */

const SHOTS = `${SCREENSHOTS}/cost-health`;

let server: ServerHandle;
let browser: Browser;
let history: CostHistory;

beforeAll(async () => {
  const dir = tempDir('cost-health');
  history = await seedCostHistory(dir, Date.now());
  server = await startServer({ dir });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function photographAndCheck(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 900]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/${name}-${width}-${scheme}.png`, fullPage: true });
      const serious = seriousOrCritical(await runAxe(page));
      expect(serious, describeViolations(`${name} at ${width}px, ${scheme}`, serious)).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function withApp(hash: string, body: (app: AppPage) => Promise<void>): Promise<void> {
  const app = await openApp(browser, server, { hash, bypassCSP: true });
  try {
    await body(app);
    expect(app.problems).toEqual([]);
  } finally {
    await app.close();
  }
}

describe('what failure costs and which flows are healthy', () => {
  it('Flows shows a failing flow as failing beside its check badge, and sorts by a column', async () => {
    await withApp('#/flows', async ({ page }) => {
      const failing = page.locator(`.flow-item[data-flow-id="${COST_FLOWS.failing}"]`);
      await expect.poll(() => failing.getAttribute('data-last-status'), { timeout: PAGE_TIMEOUT_MS }).toBe('failed');
      expect(await failing.getByTestId('flow-check').textContent()).toBe('check ok');
      expect(await failing.getByTestId('flow-success').textContent()).toBe('0% (0 of 6)');
      expect(await failing.getByTestId('flow-failures').textContent()).toBe('6');
      expect(await failing.getByTestId('flow-cost').innerText()).toBe('$3.60\n100% on failure');
      const broken = page.locator(`.flow-item[data-flow-id="${COST_FLOWS.broken}"]`);
      expect(await broken.getByTestId('flow-check').textContent()).toBe('check errors (1)');
      expect(await broken.getAttribute('data-last-status')).toBe('completed');
      // Failing first by default (the newest run's status), in its section.
      const order = (): Promise<(string | null)[]> =>
        page.locator('tbody[data-section="yours"] tr.flow-item').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-flow-id')));
      expect((await order())[0]).toBe(COST_FLOWS.failing);
      await page.getByRole('button', { name: /^Cost/ }).click();
      await expect.poll(order, { timeout: PAGE_TIMEOUT_MS }).toEqual([COST_FLOWS.failing, COST_FLOWS.steady, COST_FLOWS.broken]);
      expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Cost');
      await page.getByRole('button', { name: /^Cost/ }).click();
      await expect.poll(order, { timeout: PAGE_TIMEOUT_MS }).toEqual([COST_FLOWS.broken, COST_FLOWS.steady, COST_FLOWS.failing]);
      // The period's three figures: $3.60 of failed runs, $0.17 × 4 retried, $0.25 × 8 successful.
      await expect
        .poll(() => page.getByTestId('flows-cost').textContent(), { timeout: PAGE_TIMEOUT_MS })
        .toContain('$3.60 failed runs · $0.68 retried · $2.00 successful');
      await failing.click();
      await page.locator('#flow-title', { hasText: 'nightly-triage' }).waitFor();
      await photographAndCheck(page, 'flows');
    });
  });

  it("the Errors header's cost follows an origin filter: no failed run's spend next to 0 failures", async () => {
    await withApp('#/errors?range=24h&istatus=all', async (app) => {
      const { page } = app;
      const cost = page.getByTestId('errors-cost').getByTestId('cost-split');
      await expect.poll(() => cost.textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$3.60 failed runs · $0.68 retried · $2.00 successful');
      expect(await page.getByTestId('errors-failures').textContent()).toBe('6 failures');
      await photographAndCheck(page, 'errors-cost');

      // Every failed run ended on runtime:command; the rate limits they and the steady runs hit came from claude-code.
      await page.getByLabel('Filter by origin').selectOption('runtime:claude-code');
      await expect.poll(() => page.getByTestId('errors-failures').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('0 failures');
      await expect.poll(() => cost.textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$0.00 failed runs · $0.68 retried');
      // Successful work has no error: under an error filter it is not part of the answer, nor of its trend.
      expect(await page.getByTestId('errors-cost').textContent()).not.toContain('successful');
      // The other origin (the filter's choices are the window's origins under the other filters: back by the URL).
      await app.go('#/errors?range=24h&istatus=all&origin=runtime%3Acommand');
      await expect.poll(() => page.getByTestId('errors-failures').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('6 failures');
      await expect.poll(() => cost.textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$3.60 failed runs · $0.00 retried');
      await photographAndCheck(page, 'errors-cost-origin');
    });
  });

  it('a run that reported no usage shows no cost; one that did shows its split, in its header and in Runs', async () => {
    await withApp(`#/runs/${history.noUsageRun}`, async (app) => {
      const { page } = app;
      await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
      expect(await page.getByTestId('run-cost').count()).toBe(0);
      expect(await page.locator('.run-header').textContent()).not.toContain('$0.00');
      await app.go(`#/runs/${history.failedRun}`);
      await expect.poll(() => page.getByTestId('run-cost').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$0.60 · failed run');
      await photographAndCheck(page, 'run-failed');

      await app.go('#/runs');
      const refused = runRow(page, history.noUsageRun);
      await refused.waitFor();
      expect(await refused.getByTestId('run-row-cost').count()).toBe(0);
      expect(await refused.textContent()).not.toContain('$');
      await expect
        .poll(() => runRow(page, history.recoveredRun).getByTestId('run-row-cost').innerText(), { timeout: PAGE_TIMEOUT_MS })
        .toBe('$0.42 · $0.17 retried · $0.25 successful');
      await photographAndCheck(page, 'runs');
    });
  });

  it('Compare says the cost differs, with cost and token rows', async () => {
    await withApp(`#/compare/${history.recoveredRun}/${history.failedRun}`, async ({ page }) => {
      await expect.poll(() => page.getByTestId('compare-cost-differs').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('; the cost differs: $0.42 vs $0.60');
      const table = page.getByTestId('compare-table');
      expect(
        await table
          .locator('tr', { has: page.locator('th', { hasText: /^Cost$/ }) })
          .first()
          .textContent(),
      ).toContain('$0.42 · $0.17 retried · $0.25 successful');
      await photographAndCheck(page, 'compare');
    });
  });
});
