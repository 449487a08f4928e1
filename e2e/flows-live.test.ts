import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILING_FLOW } from '../core/service/alerts/testing.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the Flows screen's figures follow runs as they end. With the screen open, each failed
 * run of a flow moves that flow's failures and its last run in the table, with no click on
 * Reload (the table was read once, on opening, and on Reload or a change of period).
 */

describe('the Flows screen while runs end', () => {
  let server: ServerHandle;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ flows: { 'fails.prose': FAILING_FLOW } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('counts each failed run of a flow in its row as it fails', async () => {
    const app = await openApp(browser, server, { hash: '#/flows' });
    try {
      const { page } = app;
      const row = page.locator('tr.flow-item[data-flow-id="user/fails.prose"]');
      await row.waitFor();
      expect(await row.getAttribute('data-last-status')).toBe('none');
      const failures = () => row.getByTestId('flow-failures').textContent();
      const first = await server.startRun('user/fails.prose', { virtualClock: true });
      await server.waitForRun(first, ['failed']);
      await expect.poll(failures, { timeout: PAGE_TIMEOUT_MS }).toBe('1');
      expect(await row.getAttribute('data-last-status')).toBe('failed');
      const second = await server.startRun('user/fails.prose', { virtualClock: true });
      await server.waitForRun(second, ['failed']);
      await expect.poll(failures, { timeout: PAGE_TIMEOUT_MS }).toBe('2');
      await app.screenshot('flows-live');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
