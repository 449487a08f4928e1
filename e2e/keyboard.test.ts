import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { SLOW_PARALLEL } from './support/flows.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the keyboard habits (`?`, `/`, `j`/`k`, Enter, `c`, `r`, `g r`) on the Runs table.
 *
 * Keys are pressed only once the page can act on them: the Runs table has its three rows (after
 * `g r` the page mounts anew and loads them again; its row order read before that is empty, and
 * a walk over an empty order selects nothing, so `r` and `c` then had nothing to act on: the
 * "lost key press" this journey once retried to hide).
 */
describe('keyboard shortcuts', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let failed: string;
  let slow: string;

  beforeAll(async () => {
    server = await startServer({ flows: { 'slow-parallel.prose': SLOW_PARALLEL } });
    const happy = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await server.waitForRun(happy, ['completed']);
    failed = await server.startRun('examples/05-try-catch-finally.prose', { virtualClock: true });
    await server.waitForRun(failed, ['failed']);
    slow = await server.startRun('user/slow-parallel.prose');
    await server.waitForRun(slow, ['running']);
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  /** Waits until the keyboard selection is on this run. */
  const selected = (id: string | null | undefined) => {
    if (!id) throw new Error('no run to select: the row order was read before the rows were there');
    return app.page.waitForFunction(
      (want) => document.querySelector('.runs-table [role="row"][aria-selected="true"]')?.getAttribute('data-run-id') === want,
      id,
    );
  };

  /** The Runs table's row order, once all three runs are shown and the page is not loading. */
  const rowOrder = async (): Promise<string[]> => {
    const { page } = app;
    await page.waitForFunction(
      () => document.querySelectorAll('.runs-table [role="row"][data-run-id]').length === 3 && document.querySelector('.runs-page[aria-busy="true"]') === null,
    );
    const order = await page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id') ?? ''));
    expect(order).toHaveLength(3);
    return order;
  };

  it('opens the shortcut sheet with ? and closes it with Escape', async () => {
    const { page } = app;
    await runRow(page, slow).waitFor();
    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.waitFor();
    expect(await sheet.locator('kbd').allTextContents()).toEqual(expect.arrayContaining(['/', 'j', 'k', 'Enter', 'c', 'r', '?']));
    await app.screenshot('shortcut-sheet');
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached' });
  });

  it('focuses the search with / and filters as you type; keys typed there are text, not shortcuts', async () => {
    const { page } = app;
    await page.keyboard.press('/');
    const search = page.getByRole('searchbox');
    await page.waitForFunction(() => document.activeElement?.getAttribute('type') === 'search');
    await page.keyboard.type('05-try');
    await page.waitForURL(/q=05-try/);
    await page.waitForFunction(() => document.querySelectorAll('.runs-table [role="row"][data-run-id]').length === 1);
    expect(await runRow(page, failed).count()).toBe(1);
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.keyboard.press('Escape');
    await search.fill('');
    await page.waitForFunction(() => document.querySelectorAll('.runs-table [role="row"][data-run-id]').length === 3);
    await page.locator('main').click({ position: { x: 5, y: 5 } });
  });

  it('moves with j / k, opens with Enter, and goes back with g r', async () => {
    const { page } = app;
    const order = await rowOrder();
    await page.keyboard.press('j');
    await selected(order[0]);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await selected(order[1]);
    await page.keyboard.press('Enter');
    await page.waitForURL(new RegExp(`#/runs/${order[1]}$`));
    await page.locator('.run-header').waitFor();
    await page.keyboard.press('g');
    await page.keyboard.press('r');
    await page.waitForURL(/#\/runs$/);
  });

  it('asks before cancelling with c and before retrying with r', async () => {
    const { page } = app;
    const order = await rowOrder();
    expect(order).toEqual(expect.arrayContaining([failed, slow]));
    // One key at a time, each checked: the walk to a row is exact, whatever the selection was.
    const move = async (id: string): Promise<void> => {
      for (let i = 0; i < order.length; i++) await page.keyboard.press('k');
      await selected(order[0]);
      for (let i = 1; i <= order.indexOf(id); i++) {
        await page.keyboard.press('j');
        await selected(order[i]);
      }
    };

    await move(failed);
    await page.keyboard.press('r');
    const retry = page.getByRole('dialog', { name: 'Retry this run?' });
    await retry.waitFor();
    await page.keyboard.press('Escape');
    await retry.waitFor({ state: 'detached' });

    await move(slow);
    await page.keyboard.press('c');
    const cancel = page.getByRole('dialog', { name: 'Cancel this run?' });
    await cancel.waitFor();
    await app.screenshot('keyboard-cancel-confirm');
    // A destructive dialog opens on its safe button, and Enter never confirms it:
    // Tab to "Cancel run", Space confirms.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep running');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await cancel.isVisible()).toBe(true);
    await page.keyboard.press('Space');
    await runRow(page, slow).and(page.locator('[data-status="cancelled"]')).waitFor();
    expect(app.problems).toEqual([]);
  });
});
