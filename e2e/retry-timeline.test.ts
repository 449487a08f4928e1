import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** Journey: a rate-limited session's retry timeline shows growing gaps labelled with their delays. */
describe('retry timeline of a rate-limited session', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows 30s, 1m, 2m gaps, each wider than the last, and every attempt’s error', async () => {
    const { page } = app;
    const runId = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    await app.go(`#/runs/${runId}`);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();

    const fetchRow = page.locator('.tl-row[data-task-id="1:0"]');
    await fetchRow.locator('.seg-attempt').nth(3).waitFor();
    const gaps = fetchRow.locator('.seg-backoff');
    expect(await gaps.locator('.seg-label').allTextContents()).toEqual(['30s', '1m', '2m']);
    expect(await gaps.evaluateAll((els) => els.map((e) => e.getAttribute('data-delay-ms')))).toEqual(['30000', '60000', '120000']);
    const widths = await gaps.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    expect(widths[0]).toBeLessThan(widths[1] as number);
    expect(widths[1]).toBeLessThan(widths[2] as number);
    expect(await fetchRow.locator('.seg-attempt').evaluateAll((els) => els.map((e) => [...e.classList].find((c) => c.startsWith('outcome-'))))).toEqual([
      'outcome-failed',
      'outcome-failed',
      'outcome-failed',
      'outcome-succeeded',
    ]);

    // The second session's explicit policy: 2s, 4s, 8s, then capped at 10s.
    const syncGaps = page.locator('.tl-row[data-task-id="2:1"] .seg-backoff .seg-label');
    expect(await syncGaps.allTextContents()).toEqual(['2s', '4s', '8s', '10s']);

    // Every attempt keeps its own error: open attempt 2's envelope.
    await fetchRow.locator('.seg-attempt[data-attempt="2"]').click();
    const envelope = page.getByTestId('error-envelope');
    await envelope.waitFor();
    expect(await envelope.locator('.envelope-code').textContent()).toBe('RUNTIME_RATE_LIMIT');
    expect(await envelope.textContent()).toContain('attempt 2');
    await fetchRow.locator('.seg-attempt[data-attempt="1"]').hover();
    expect(await fetchRow.locator('.seg-attempt[data-attempt="1"]').getAttribute('title')).toContain('RUNTIME_RATE_LIMIT');
    await app.screenshot('retry-timeline-rate-limited');

    await page.emulateMedia({ colorScheme: 'dark' });
    await app.screenshot('retry-timeline-rate-limited-dark');
    expect(app.problems).toEqual([]);
  });
});
