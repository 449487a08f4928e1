import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { costFlowSource, writeClaudeStandIn } from '../core/testing/claude-stand-in.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { join } from 'node:path';
import { launchBrowser, openApp, runRow, PAGE_TIMEOUT_MS, SCREENSHOTS } from './support/browser.js';
import { startServer, tempDir } from './support/server.js';

/**
 * Journey: a claude-code run whose first attempt failed after spending $0.17 and whose second
 * succeeded for $0.25 (the preset reading a stand-in CLI's result, core/testing/claude-stand-in.ts)
 * shows its cost split (retried, successful) in the run header and the Runs list, each attempt's
 * tokens and cost in the inspector, the flow's total and failure share on the Flows list and the
 * three figures on the Errors screen; the inspector says the figures are the CLI's own result.
 * Every screen is photographed at 1400 and 900 px in light and dark, and axe finds nothing serious.
 */

const SHOTS = join(SCREENSHOTS, 'cost');

async function photographAndCheck(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1400, 900]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${SHOTS}/${name}-${width}-${scheme}.png` });
      const serious = seriousOrCritical(await runAxe(page));
      expect(serious, describeViolations(`${name} at ${width}px, ${scheme}`, serious)).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('what a run cost, failed attempts included', () => {
  it('shows $0.42 · $0.17 retried · $0.25 successful in the header, the list, the inspector, Flows and Errors', async () => {
    const dir = tempDir('cost');
    const server = await startServer({ dir, flows: { 'cost.prose': costFlowSource(writeClaudeStandIn(dir)) } });
    const browser = await launchBrowser();
    const app = await openApp(browser, server, { bypassCSP: true });
    try {
      const { page } = app;
      const runId = await server.startRun('user/cost.prose', { virtualClock: true });

      await app.go(`#/runs/${runId}`);
      await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
      await expect.poll(() => page.getByTestId('run-cost').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$0.42 · $0.17 retried · $0.25 successful');
      expect(await page.getByTestId('run-cost').textContent()).toContain('2,700 in · 320 out');
      await page.locator('.tl-row .seg-attempt[data-attempt="1"]').first().click();
      await expect.poll(() => page.getByTestId('attempt-usage').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('$0.17');
      expect(await page.getByTestId('attempt-usage').textContent()).toContain('1,200 in · 80 out');
      // The stand-in CLI sends no telemetry: the attempt says its figures are the CLI's own result.
      expect(await page.getByTestId('attempt-figures').textContent()).toBe("Figures from the CLI's own result: no telemetry arrived from inside this attempt.");
      await photographAndCheck(page, 'run-detail');

      await app.go('#/runs');
      const row = runRow(page, runId);
      await expect.poll(() => row.getByTestId('run-row-cost').innerText(), { timeout: PAGE_TIMEOUT_MS }).toBe('$0.42 · $0.17 retried · $0.25 successful');
      // Where the column is narrow the row keeps the total and the retried share (its title has the rest).
      await page.setViewportSize({ width: 900, height: 900 });
      await expect.poll(() => row.getByTestId('run-row-cost').innerText(), { timeout: PAGE_TIMEOUT_MS }).toBe('$0.42 · $0.17 retried');
      await photographAndCheck(page, 'runs-list');

      await app.go('#/flows');
      const flowRow = page.locator('.flow-item[data-flow-id="user/cost.prose"]');
      await expect.poll(() => flowRow.getByTestId('flow-cost').innerText(), { timeout: PAGE_TIMEOUT_MS }).toBe('$0.42\n40% on failure');
      await expect
        .poll(() => page.getByTestId('flows-cost').textContent(), { timeout: PAGE_TIMEOUT_MS })
        .toContain('$0.00 failed runs · $0.17 retried · $0.25 successful');
      await photographAndCheck(page, 'flows-costs');

      // Every issue: the run recovered, so its $0.17 is retried, not a failed run's, and the $0.25 is successful work.
      await app.go('#/errors?istatus=all');
      await expect
        .poll(() => page.getByTestId('errors-cost').textContent(), { timeout: PAGE_TIMEOUT_MS })
        .toContain('$0.00 failed runs · $0.17 retried · $0.25 successful');
      await photographAndCheck(page, 'errors-cost');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await browser.close();
      await server.stop();
    }
  }, 180_000);
});
