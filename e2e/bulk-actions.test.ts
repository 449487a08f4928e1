import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournaledEvent, RunCounts } from '../core/service/api.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, SCREENSHOTS, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { SLOW_PARALLEL } from './support/flows.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: 200 running runs, "select all matching", cancel. The confirmation
 * names the count and is not confirmed by Enter; the window stays usable while the chunks go out
 * (the second chunk's request is held until a row has been toggled, so "while" is certain, not
 * timed); all 200 end cancelled, each with its own command id, and the summary says so. The bar,
 * the dialog and the summary are shot and scanned by axe at 1400 and 900 px in both themes.
 */

const RUNS = 200;
const FLOW = 'user/slow-parallel.prose';

describe('bulk cancel of every run matching a filter', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'slow-parallel.prose': SLOW_PARALLEL } });
    browser = await launchBrowser();
    for (let i = 0; i < RUNS; i++) await server.startRun(FLOW);
    app = await openApp(browser, server, { hash: `#/runs?status=running&flow=${encodeURIComponent(FLOW)}`, bypassCSP: true });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  const counts = (status: string): Promise<RunCounts> => server.api<RunCounts>('GET', `/api/runs/counts?status=${status}&flow=${encodeURIComponent(FLOW)}`);

  /** Shoots the page at 1400 and 900 px in both themes and scans each with axe; the serious findings. */
  async function shootAndScan(page: Page, name: string): Promise<string[]> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const findings: string[] = [];
    for (const width of [1400, 900]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: join(SCREENSHOTS, `bulk-${name}-${width}-${colorScheme}.png`) });
        const serious = seriousOrCritical(await runAxe(page));
        if (serious.length > 0) findings.push(describeViolations(`${name} at ${width} px, ${colorScheme}`, serious));
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    return findings;
  }

  it('selects all 200 matching runs, confirms (not by Enter), stays responsive, and ends with 200 cancelled', async () => {
    const { page } = app;
    await expect.poll(async () => (await counts('running')).total, { message: 'all runs running', timeout: 120_000 }).toBe(RUNS);
    await page.getByTestId('runs-count').getByText(`${RUNS} runs match`).waitFor();

    // One page of rows is loaded; the bar offers the whole filter, counted by the server.
    await page.getByRole('checkbox', { name: 'Select all shown runs' }).check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('100 runs selected').waitFor();
    await bar.getByRole('button', { name: `Select all ${RUNS} runs matching this filter` }).click();
    await bar.getByText(`All ${RUNS} runs matching this filter selected`).waitFor();
    const findings = await shootAndScan(page, 'bar');

    await bar.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel ${RUNS} runs?` });
    await dialog.waitFor();
    await dialog.getByText(`${RUNS} of ${RUNS} runs will be cancelled.`).waitFor();
    // A destructive dialog: Enter, even on the confirm button, does not confirm.
    await dialog.getByRole('button', { name: `Cancel ${RUNS} runs` }).focus();
    await page.keyboard.press('Enter');
    expect(await dialog.isVisible()).toBe(true);
    expect((await counts('running')).total).toBe(RUNS);
    findings.push(...(await shootAndScan(page, 'dialog')));

    // Hold the second chunk until the window has shown it still answers the operator.
    let executions = 0;
    let held: Route | null = null;
    let onHeld: () => void = () => undefined;
    const heldNow = new Promise<void>((resolve) => (onHeld = resolve));
    await page.route('**/api/runs/bulk', async (route) => {
      const body = route.request().postDataJSON() as { dryRun?: boolean };
      if (body.dryRun !== true && ++executions === 2) {
        held = route;
        onHeld();
        return;
      }
      await route.continue();
    });
    await dialog.getByRole('button', { name: `Cancel ${RUNS} runs` }).click();
    await heldNow;

    const status = page.getByTestId('bulk-status');
    await status.getByText(`Cancelling… 50 of ${RUNS} runs`).waitFor();
    // The two chunks sent are shown cancelling and leave the "running" filter; the next page fills in.
    const runningRow = page.locator('.runs-table [role="row"][data-run-id][data-status="running"]').first();
    const toggled = (await runningRow.getAttribute('data-run-id')) as string;
    const box = page.getByRole('checkbox', { name: `Select run ${toggled}` });
    const before = await box.isChecked();
    await box.click();
    await expect.poll(() => box.isChecked(), { timeout: PAGE_TIMEOUT_MS }).toBe(!before);
    expect(await status.textContent()).toBe(`Cancelling… 50 of ${RUNS} runs`);
    await (held as Route | null)?.continue();

    await status.getByText(`${RUNS} cancelled, 0 refused`).waitFor({ timeout: 60_000 });
    await page.getByText(`Per-run results (${RUNS})`).click();
    expect(await page.getByTestId('bulk-per-run').locator('li[data-outcome="done"]').count()).toBe(RUNS);
    findings.push(...(await shootAndScan(page, 'summary')));
    expect(findings).toEqual([]);

    await expect.poll(async () => (await counts('cancelled')).total, { message: 'every run cancelled', timeout: 60_000 }).toBe(RUNS);
    expect((await counts('running')).total).toBe(0);
    // One command each: every run's cancelRequested carries an id of its own.
    const ids = (await server.api<{ items: { id: string }[] }>('GET', `/api/runs?flow=${encodeURIComponent(FLOW)}&limit=${RUNS}`)).items.map((r) => r.id);
    const commandIds = await Promise.all(
      ids.map(async (id) => {
        const events = await server.api<JournaledEvent[]>('GET', `/api/runs/${encodeURIComponent(id)}/events`);
        return events.filter((e) => e.type === 'cancelRequested').map((e) => (e as { commandId?: string }).commandId);
      }),
    );
    expect(commandIds.every((list) => list.length === 1)).toBe(true);
    expect(new Set(commandIds.flat()).size).toBe(RUNS);
    expect(app.problems).toEqual([]);
  });
});
