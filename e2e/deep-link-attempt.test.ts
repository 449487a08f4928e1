import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';
import { seedWideRun } from './support/wide-run.js';

/**
 * Journey: a link to one attempt of a wide run — `#/runs/<id>?task=2:12&attempt=1`
 * — opens with that attempt scrolled into view both ways and focused, never off to the right.
 */

const RUN = 'run_wide_fan_out';

describe('a deep link to an attempt of a wide run', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  const opened: AppPage[] = [];

  beforeAll(async () => {
    const dir = tempDir('deep-link');
    await seedWideRun(`${dir}/hivewatch.db`, { runId: RUN, tasks: 16, failures: 2, start: Date.now() - 3_600_000 });
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: `#/runs/${RUN}?task=2:12&attempt=1`, bypassCSP: true });
  }, 60_000);

  afterAll(async () => {
    for (const page of opened) await page.close();
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  /** The link opened as an operator opens a copied one: a new page loading it (then at `width`). */
  async function openLink(width: number): Promise<AppPage> {
    const fresh = await openApp(browser, server, { hash: `#/runs/${RUN}?task=2:12&attempt=1`, bypassCSP: true });
    opened.push(fresh);
    if (width !== 1440) {
      await fresh.page.setViewportSize({ width, height: 900 });
      await fresh.page.reload();
    }
    return fresh;
  }

  for (const width of [1440, 900]) {
    it(`opens the link with the attempt in view and focused at ${width} px`, async () => {
      const link = await openLink(width);
      const { page } = link;
      const bar = page.locator('.tl-row[data-task-id="2:12"] .seg-attempt[data-attempt="1"]');
      await bar.waitFor();
      // The run really is wider than the panel: without scrolling the attempt would be off-screen.
      const scroller = page.locator('.timeline-scroll');
      const widths = await scroller.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(widths.scroll).toBeGreaterThan(widths.client * 1.5);

      await expect.poll(() => bar.evaluate((el) => el === document.activeElement), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
      const box = await bar.boundingBox();
      const label = await page.locator('.tl-row[data-task-id="2:12"] .tl-label').boundingBox();
      expect(box).not.toBeNull();
      expect(label).not.toBeNull();
      if (!box || !label) return;
      // Inside the window, and right of the pinned task column (not hidden under it).
      expect(box.x).toBeGreaterThanOrEqual(label.x + label.width);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(900);
      expect(await scroller.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
      // The attempt is also picked: its inspector below names it.
      await expect.poll(() => page.locator('.timeline-detail').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('attempt 1');

      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await link.screenshot(`deep-link-attempt-${width}-${scheme}`);
        const bad = seriousOrCritical(await runAxe(page));
        expect(bad, describeViolations(`run detail (${width} px, ${scheme})`, bad)).toEqual([]);
      }
      expect(link.problems).toEqual([]);
    });
  }

  it('follows the link again inside an open window', async () => {
    const { page } = app;
    await app.go('#/runs');
    await app.go(`#/runs/${RUN}?task=2:13&attempt=2`);
    const bar = page.locator('.tl-row[data-task-id="2:13"] .seg-attempt[data-attempt="2"]');
    await expect.poll(() => bar.evaluate((el) => el === document.activeElement), { timeout: PAGE_TIMEOUT_MS }).toBe(true);
    const box = await bar.boundingBox();
    expect(box && box.x + box.width <= 1440 && box.x > 0).toBe(true);
    expect(app.problems).toEqual([]);
  });
});
