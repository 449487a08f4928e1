import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../core/store/index.js';
import { JournalBuilder } from '../core/store/testing/journal-builder.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, SCREENSHOTS, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: "all N matching this filter" when the Runs filter names nothing but a status. That is
 * every failed run, and the window says so where the operator chooses it (the link, the bar, the
 * confirmation) and sends `all`, without which the server refuses such a filter (docs/triage.md
 * "When a filter is resolved"). Shot and scanned by axe at 1440 and 900 px in both themes.
 */

const RUNS = 120;

describe('a bulk action on every run of a status', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('bulk-every');
    const db = join(dir, 'hivewatch.db');
    const store = await openStore({ path: db });
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < RUNS; i++) {
      const run = new JournalBuilder(`failed-${String(i).padStart(3, '0')}`, { flow: 'user/fails.prose', flowName: 'fails', start: start + i * 1_000 });
      await store.appendEvents(
        run
          .start()
          .runStep([{ attempts: [{ code: 'RUNTIME_CRASHED', origin: 'runtime:fake' }] }])
          .fail().events,
      );
    }
    await store.close();
    server = await startServer({ dir, db });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/runs?status=failed', bypassCSP: true });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  async function shootAndScan(page: Page, name: string): Promise<string[]> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const findings: string[] = [];
    for (const width of [1440, 900]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: join(SCREENSHOTS, `bulk-every-${name}-${width}-${colorScheme}.png`) });
        const serious = seriousOrCritical(await runAxe(page));
        if (serious.length > 0) findings.push(describeViolations(`${name} at ${width} px, ${colorScheme}`, serious));
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    return findings;
  }

  it('says "every failed run" on the link, the bar and the dialog, and sends all; the API refuses the filter without it', async () => {
    await expect(server.api('POST', '/api/runs/bulk', { action: 'retry', where: { status: ['failed'] }, dryRun: true })).rejects.toThrow(
      '400 {"error":{"code":"broad_filter","message":"where names no flow, text, error, issue or time, so it would act on every failed run; send all: true if that is what you mean"}}',
    );
    const { page } = app;
    await page.getByTestId('runs-count').getByText(`${RUNS} runs match`).waitFor();
    await page.getByRole('checkbox', { name: 'Select all shown runs' }).check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('100 runs selected').waitFor();
    const findings = await shootAndScan(page, 'link');
    await bar.getByRole('button', { name: `Select every failed run: all ${RUNS} runs (the filter names no flow, text, error or time)` }).click();
    await bar.getByText(`Every failed run selected: all ${RUNS} runs`).waitFor();
    findings.push(...(await shootAndScan(page, 'bar')));

    const sent: unknown[] = [];
    await page.route('**/api/runs/bulk', async (route) => {
      sent.push(route.request().postDataJSON());
      await route.continue();
    });
    await bar.getByRole('button', { name: 'Retry', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Retry ${RUNS} runs?` });
    await dialog.waitFor();
    await dialog.getByTestId('bulk-every').getByText('The filter names no flow, text, error or time: this takes every failed run.').waitFor();
    expect(sent).toEqual([{ action: 'retry', dryRun: true, where: { status: ['failed'] }, all: true }]);
    findings.push(...(await shootAndScan(page, 'dialog')));
    await dialog.getByRole('button', { name: 'Not now' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(findings).toEqual([]);
    expect(app.problems).toEqual([]);
  });
});
