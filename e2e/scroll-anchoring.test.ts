import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { bulkSeed } from '../bench/ui/bulk-seed.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: an operator scrolled down a long Runs table, pointer on a row, while new
 * runs start. The row under the pointer stays where it is (no misclick on a moving Cancel), a
 * "3 new runs" pill says what arrived, and a click on it scrolls to the top where they are.
 */

const ROW_HEIGHT = 52;

/** The run id of the row under a point, and that row's top edge. */
function rowAt(page: Page, x: number, y: number): Promise<{ id: string | null; top: number | null }> {
  return page.evaluate(
    ([px, py]) => {
      const row = document.elementFromPoint(px as number, py as number)?.closest<HTMLElement>('[role="row"][data-run-id]');
      return { id: row?.dataset.runId ?? null, top: row ? row.getBoundingClientRect().top : null };
    },
    [x, y],
  );
}

describe('a scrolled Runs table under live inserts', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('anchoring');
    bulkSeed(`${dir}/hivewatch.db`, { runs: 300, errors: 60, now: Date.now() - 60_000 });
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { bypassCSP: true });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('keeps the row under the pointer in place and offers the new runs in a pill', async () => {
    const { page } = app;
    await page.setViewportSize({ width: 1400, height: 900 });
    const scroller = page.getByTestId('runs-scroll');
    await page.locator('.runs-table [role="row"][data-run-id]').first().waitFor();
    await scroller.evaluate((el, row) => (el.scrollTop = 40 * row + 10), ROW_HEIGHT);
    await expect.poll(() => page.locator('.runs-table [role="row"][data-run-id="run_bulk0000259"]').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(1);

    const box = await scroller.boundingBox();
    expect(box).not.toBeNull();
    const x = (box?.x ?? 0) + (box?.width ?? 0) / 2;
    const y = (box?.y ?? 0) + 200;
    await page.mouse.move(x, y);
    const before = await rowAt(page, x, y);
    expect(before.id).toMatch(/^run_bulk/);

    const started = [];
    for (let i = 0; i < 3; i++) started.push(await server.startRun('examples/01-happy-path.prose', { virtualClock: true }));
    for (const id of started) await server.waitForRun(id, ['completed']);
    const pill = page.getByTestId('new-runs-pill');
    await expect.poll(() => pill.textContent(), { timeout: 15_000 }).toBe('3 new runs ↑');

    // Nothing moved under the pointer: the same row, at the same height.
    expect(await rowAt(page, x, y)).toEqual(before);
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(43 * ROW_HEIGHT + 10);

    for (const [width, scheme] of [
      [1400, 'light'],
      [1400, 'dark'],
      [900, 'light'],
      [900, 'dark'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await app.screenshot(`runs-new-runs-pill-${width}-${scheme}`);
      // The pill covers nothing: no row, no heading's button or tick box (it sits over the actions heading, which shows none).
      // A row is judged by the part of it the list shows: a row scrolled half out is clipped at the list's top.
      const covered = await pill.evaluate((el) => {
        const p = el.getBoundingClientRect();
        const list = document.querySelector('[data-testid="runs-scroll"]')?.getBoundingClientRect();
        const shown = (other: Element): { left: number; right: number; top: number; bottom: number } => {
          const r = other.getBoundingClientRect();
          if (!list || !other.matches('[data-run-id]')) return r;
          return { left: r.left, right: r.right, top: Math.max(r.top, list.top), bottom: Math.min(r.bottom, list.bottom) };
        };
        const hits = (r: { left: number; right: number; top: number; bottom: number }): boolean =>
          r.right > r.left && r.bottom > r.top && r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top;
        return [...document.querySelectorAll('.runs-table [role="row"][data-run-id], .grid-header button, .grid-header input')]
          .filter((other) => hits(shown(other)))
          .map((other) => other.getAttribute('data-run-id') ?? other.textContent ?? other.outerHTML.slice(0, 60));
      });
      expect(covered).toEqual([]);
      const bad = seriousOrCritical(await runAxe(page));
      expect(bad, describeViolations(`runs with the pill (${width} px, ${scheme})`, bad)).toEqual([]);
      // At 900 px too, every row shows its flow's name.
      const names = await page
        .locator('.runs-table [role="row"][data-run-id] .run-link')
        .evaluateAll((links) => links.map((a) => a.getBoundingClientRect().width));
      expect(names.length).toBeGreaterThan(5);
      expect(names.filter((w) => w < 40)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1400, height: 900 });

    await pill.click();
    await expect.poll(() => scroller.evaluate((el) => el.scrollTop), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    await expect.poll(() => pill.count(), { timeout: PAGE_TIMEOUT_MS }).toBe(0);
    const top = await page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) => rows.slice(0, 3).map((r) => r.getAttribute('data-run-id')));
    expect([...top].sort()).toEqual([...started].sort());
    expect(app.problems).toEqual([]);
  });
});
