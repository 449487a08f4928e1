import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, runRow, SCREENSHOTS, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: live must mean live. The server stops under an open window: the badge says
 * "Reconnecting…" with the time since the last event, then "Offline"; the server restarts on the
 * same database and port: the window finds it by itself (no button), and new runs stream in.
 */
describe('the live badge when the server stops and restarts', () => {
  const dir = tempDir('live-state');
  let server: ServerHandle | undefined;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ dir, keepDir: true });
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says reconnecting, then offline, and recovers after a restart', async () => {
    const { page } = app;
    const badge = page.getByTestId('connection');
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    const first = await server!.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(page, first).and(page.locator('[data-status="completed"]')).waitFor();

    const port = Number(new URL(server!.origin).port);
    const token = server!.token;
    await server!.stop();
    server = undefined;

    await page.locator('[data-testid="connection"][data-state="reconnecting"]').waitFor();
    expect(await badge.textContent()).toMatch(/^Reconnecting… · last event (just now|\d+s ago)$/);
    await app.screenshot('live-reconnecting');
    await page.locator('[data-testid="connection"][data-state="offline"]').waitFor();
    expect(await badge.textContent()).toMatch(/^Offline · last event \d+s ago$/);
    await app.screenshot('live-offline');

    server = await startServer({ dir, keepDir: true, port });
    // The database keeps its token: the open window's link still works.
    expect(server.token).toBe(token);
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    expect(await page.getByRole('button', { name: /try again/i }).count()).toBe(0);
    const second = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(page, second).and(page.locator('[data-status="completed"]')).waitFor();
    await runRow(page, first).waitFor();
    await app.screenshot('live-recovered');
    // The refused connections while the server was down are the only console errors.
    expect(app.problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource|Failed to fetch/i.test(p))).toEqual([]);
  });

  it('a screen whose chunk cannot load shows its error with Try again, never a blank page', async () => {
    const page = await app.context.newPage();
    try {
      let blocked = 0;
      await page.route(/ErrorsPage-[^/]*\.js(\?|$)/, async (route) => {
        blocked++;
        await route.abort();
      });
      await page.goto(`${server!.url}#/errors`);
      const boundary = page.getByTestId('screen-error');
      await boundary.waitFor();
      expect(await boundary.locator('strong').textContent()).toBe('The errors screen could not be loaded');
      // Fetched 4 times in all (retryImport) before the boundary showed the failure.
      expect(blocked).toBe(4);
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, 'screen-error-boundary.png') });
      await page.unroute(/ErrorsPage-[^/]*\.js(\?|$)/);
      await boundary.getByRole('button', { name: 'Try again' }).click();
      await page.locator('#errors-title').waitFor();
      expect(await boundary.count()).toBe(0);
    } finally {
      await page.close();
    }
  });

  it('a screen whose chunk fails to load once opens on the retry, by itself', async () => {
    const page = await app.context.newPage();
    try {
      let refused = 0;
      await page.route(/ErrorsPage-[^/]*\.js(\?|$)/, async (route) => {
        if (refused++ === 0) await route.abort();
        else await route.continue();
      });
      await page.goto(`${server!.url}#/errors`);
      await page.locator('#errors-title').waitFor();
      // The first fetch refused, the second (app/retry-import.ts) brought the screen itself.
      expect(refused).toBe(2);
      expect(await page.getByTestId('screen-error').count()).toBe(0);
    } finally {
      await page.close();
    }
  });
});
