import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { runRow, SCREENSHOTS } from './support/browser.js';
import { useJourney } from './support/journey.js';

/**
 * Journey: a copied link keeps working in a new tab (the link has no token: the new tab reads the
 * one the first tab stored in this origin's localStorage, live stream included; no cookie is
 * involved, see token-scope.test.ts); a browser that never had the token sees a page that says
 * how to get in (open the printed link, or paste the token) and gets in by pasting it; one with
 * another token is told its token is the wrong one.
 */
describe('links that keep working', () => {
  const journey = useJourney({ hash: '#/runs' });

  const shot = async (page: Page, name: string): Promise<void> => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  };

  it('a copied link (no token) opened in a new tab of the same browser works, live', async () => {
    const { server, app } = journey;
    const { page, context } = app;
    const runId = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(page, runId).waitFor();
    // The first tab took the token out of its address bar: what the operator copies has none.
    const copied = page.url();
    expect(copied).not.toContain('token=');
    expect(await context.cookies()).toEqual([]);

    const tab = await context.newPage();
    await tab.goto(`${server.origin}/#/runs/${encodeURIComponent(runId)}`);
    await tab.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    // Live in the new tab too: a run started now shows up there by itself.
    await tab.locator('.tab', { hasText: 'Runs' }).click();
    await tab.locator('[data-testid="connection"][data-state="live"]').waitFor();
    const second = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await runRow(tab, second).waitFor();
    expect(await tab.evaluate(() => window.localStorage.getItem('hivewatch.token'))).toBe(server.token);
    await shot(tab, 'links-new-tab');
    await tab.close();
    expect(app.problems).toEqual([]);
  });

  it('a browser that never had the token is told how to get in, and gets in by pasting it; another token reads "wrong token"', async () => {
    const { server, browser } = journey;
    const fresh = await browser.newContext({ viewport: { width: 1200, height: 700 } });
    try {
      const page = await fresh.newPage();
      const runId = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
      await server.waitForRun(runId, ['completed']);
      await page.goto(`${server.origin}/#/runs/${encodeURIComponent(runId)}`);
      const access = page.getByTestId('access-page');
      await access.getByRole('heading', { level: 1, name: 'Open Hivewatch with its link' }).waitFor();
      expect(await access.textContent()).toMatch(/no access token for the Hivewatch at 127\.0\.0\.1:\d+ yet.*Open the link hivewatch serve printed/);
      // Never an API error, never a badge reconnecting forever.
      expect(await page.getByText(/missing token/).count()).toBe(0);
      expect(await page.getByTestId('connection').count()).toBe(0);
      await shot(page, 'links-token-missing');
      await access.getByLabel('Access token').fill(server.token);
      await access.getByRole('button', { name: 'Open Hivewatch' }).click();
      // The link's own page opens, live.
      await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
      await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
      expect(page.url()).not.toContain('token=');

      const wrong = await browser.newContext({ viewport: { width: 1200, height: 700 } });
      try {
        const other = await wrong.newPage();
        await other.goto(`${server.origin}/?token=not-the-token#/runs`);
        await other
          .getByTestId('access-page')
          .getByText(/wrong token/)
          .waitFor();
        expect(await other.getByText(/missing token/).count()).toBe(0);
        await shot(other, 'links-token-wrong');
      } finally {
        await wrong.close();
      }
    } finally {
      await fresh.close();
    }
  });
});
