import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Page as ApiPage, RunSummary } from '../core/service/api.js';
import { launchBrowser, openApp, runRow } from './support/browser.js';
import { TWO_STEPS } from './support/flows.js';
import { killRunMidway, startServer, tempDir, writeFlows } from './support/server.js';

/** Journeys: retry a failed run from the table; resume a run whose host was killed. */
describe('retry and resume', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('retries a failed run: a new run of the same flow, linked to the old one', async () => {
    const server = await startServer();
    const app = await openApp(browser, server);
    try {
      const { page } = app;
      const failedId = await server.startRun('examples/05-try-catch-finally.prose', { virtualClock: true });
      await server.waitForRun(failedId, ['failed']);
      const row = runRow(page, failedId);
      await row.and(page.locator('[data-status="failed"]')).waitFor();
      await row.getByRole('button', { name: `Retry run ${failedId}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Retry this run?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Start new run' }).click();
      const toast = page.locator('.toast', { hasText: 'Started a new run:' });
      await toast.waitFor();

      const runs = await server.api<ApiPage<RunSummary>>('GET', '/api/runs?limit=10');
      const retry = runs.items.find((r) => r.retryOf === failedId);
      expect(retry).toBeDefined();
      // The notice links to the new run, by its id's tail (the whole id on hover).
      const link = toast.getByRole('link');
      expect(await link.textContent()).toBe(`…${retry!.id.slice(-8)}`);
      expect(await link.getAttribute('title')).toBe(retry!.id);
      await app.screenshot('runs-retry-toast');
      await link.click();
      await page.waitForURL(new RegExp(`#/runs/${retry!.id}$`));
      await page.locator('.run-facts dt', { hasText: 'Retry of' }).waitFor();
      await app.go('#/runs');
      const retryRow = runRow(page, retry!.id);
      await retryRow.and(page.locator('[data-status="failed"]')).waitFor();
      expect(await retryRow.locator('.cell-sub', { hasText: 'retry' }).count()).toBe(1);
      await app.screenshot('runs-after-retry');

      await retryRow.locator('.run-link').click();
      await page.locator('.run-facts dt', { hasText: 'Retry of' }).waitFor();
      expect(await page.locator('.run-facts a', { hasText: failedId }).getAttribute('href')).toBe(`#/runs/${failedId}`);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await server.stop();
    }
  });

  it('resumes a run interrupted by a killed host from its last checkpoint', async () => {
    const dir = tempDir('resume');
    const flowsDir = writeFlows(dir, { 'two-steps.prose': TWO_STEPS });
    const dbPath = join(dir, 'hivewatch.db');
    // The host dies while step 2 runs: step 1 is checkpointed, step 2 never commits.
    const runId = await killRunMidway(join(flowsDir, 'two-steps.prose'), dbPath, (e) => e.type === 'attemptStarted' && e.step === 2);

    // A new server on the same database finds the run and marks it interrupted.
    const server = await startServer({ dir });
    const app = await openApp(browser, server);
    try {
      const { page } = app;
      const row = runRow(page, runId);
      await row.and(page.locator('[data-status="interrupted"]')).waitFor();
      await app.screenshot('runs-interrupted');
      await row.getByRole('button', { name: 'Resume' }).click();
      const dialog = page.getByRole('dialog', { name: 'Resume this run?' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Resume' }).click();

      await page.waitForURL((url) => url.hash.startsWith('#/runs/run_') && !url.hash.includes(runId));
      await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
      expect(await page.locator('.run-facts a', { hasText: runId }).getAttribute('href')).toBe(`#/runs/${runId}`);
      // Only step 2 ran again; step 1 came from the checkpoint.
      expect(await page.locator('.tl-row[data-task-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task-id')))).toEqual(['2:1']);
      await app.screenshot('run-resumed-completed');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await server.stop();
    }
  });
});
