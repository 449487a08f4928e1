import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeViolations, runAxe, seriousOrOutsideLandmarks } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

const CRASHES = 'agent assistant:\n  runtime: "fake"\n\nsession: assistant\n  prompt: "Deploy"\n  simulate: "crash"\n';

/**
 * Journey: a screen whose data could not be refreshed says so. The Errors screen shows the last
 * 24 hours; the server stops; "Last 7 days" is chosen. The figures on screen are still the 24
 * hours': "Last 24 hours" stays lit, "Last 7 days" is marked pending (never lit in its place),
 * and a note says the figures are out of date, of which window and read when. The Runs screen
 * says since when it is not live. Once the server is back, the 7 days are read and the notes go.
 * Both themes at 1440 and 900 px, axe (serious, critical, `region`) on each.
 */
describe('data that could not be refreshed is marked stale, with its time', () => {
  const dir = tempDir('stale');
  let server: ServerHandle | undefined;
  let browser: Browser;
  let app: AppPage;
  let opened = 0;

  beforeAll(async () => {
    server = await startServer({ dir, keepDir: true, flows: { 'crashes.prose': CRASHES } });
    const failed = await server.startRun('user/crashes.prose', { virtualClock: true });
    await server.waitForRun(failed, ['failed']);
    browser = await launchBrowser();
    opened = Date.now();
    app = await openApp(browser, server, { bypassCSP: true, hash: '#/errors?range=24h' });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the 24 hours lit and marked out of date when the 7 days cannot be read, and reads them once the server is back', async () => {
    const { page } = app;
    const window = (label: string) => page.getByRole('group', { name: 'Time window' }).getByRole('button', { name: label });
    await page.locator('.groups-table tbody tr', { hasText: 'RUNTIME_CRASHED' }).waitFor();
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    const note = page.getByTestId('stale-note').first();
    expect(await note.isVisible()).toBe(false);
    const stopped = Date.now();

    const port = Number(new URL(server!.origin).port);
    await server!.stop();
    server = undefined;
    await page
      .getByTestId('unreachable')
      .filter({ hasText: `not reachable at 127.0.0.1:${port}` })
      .waitFor();
    await window('Last 7 days').click();

    await note.filter({ hasText: 'refreshing failed' }).waitFor();
    const text = (await note.textContent()) ?? '';
    expect(text).toMatch(/^⚠?Out of date: showing the figures of last 24 hours read at (\d{2}):(\d{2}):(\d{2}); refreshing failed \(.+\)\.$/);
    // The time it names is when the 24 hours were read: after the window opened, before the server stopped.
    const [, h, m, sec] = (/read at (\d{2}):(\d{2}):(\d{2})/.exec(text) ?? []).map(Number);
    const read = new Date(stopped);
    read.setHours(h as number, m as number, sec as number, 0);
    if (read.getTime() > stopped + 1000) read.setDate(read.getDate() - 1);
    expect(read.getTime()).toBeGreaterThanOrEqual(Math.floor(opened / 1000) * 1000);
    expect(read.getTime()).toBeLessThanOrEqual(stopped);
    expect(await window('Last 24 hours').getAttribute('aria-pressed')).toBe('true');
    expect(await window('Last 7 days').getAttribute('aria-pressed')).toBe('false');
    expect(await window('Last 7 days').getAttribute('data-pending')).toBe('true');
    // The 24 hours' figures are still on screen, under the note.
    expect(await page.locator('.groups-table tbody tr', { hasText: 'RUNTIME_CRASHED' }).count()).toBeGreaterThan(0);

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height: 900 });
        const found = seriousOrOutsideLandmarks(await runAxe(page));
        if (found.length > 0) failures.push(describeViolations(`errors, stale (${colorScheme}, ${width} px)`, found));
        await app.screenshot(`stale-errors-${colorScheme}-${width}`);
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1440, height: 900 });

    // The Runs screen, while the stream is down, says since when it is not live.
    await app.go('#/runs');
    const runsNote = page.getByTestId('stale-note').filter({ hasText: 'not live since' });
    await runsNote.waitFor();
    expect(await runsNote.textContent()).toMatch(/Out of date: not live since \d{2}:\d{2}:\d{2}; what this screen shows may have changed since\.$/);
    await app.screenshot('stale-runs');
    const found = seriousOrOutsideLandmarks(await runAxe(page));
    if (found.length > 0) failures.push(describeViolations('runs, not live', found));
    expect(failures, failures.join('\n\n')).toEqual([]);

    // Back on the same port and database: the 7 days are read, lit, and nothing is marked.
    await app.go('#/errors?range=7d');
    server = await startServer({ dir, keepDir: true, port });
    await expect.poll(() => window('Last 7 days').getAttribute('aria-pressed'), { timeout: 30_000 }).toBe('true');
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    await expect
      .poll(() => page.getByTestId('stale-note').evaluateAll((notes) => notes.filter((n) => !(n as HTMLElement).hidden).length), { timeout: 30_000 })
      .toBe(0);
    expect(await window('Last 24 hours').getAttribute('aria-pressed')).toBe('false');
  });
});
