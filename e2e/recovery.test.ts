import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, runRow, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

const CRASHES = 'agent assistant:\n  runtime: "fake"\n\nsession: assistant\n  prompt: "Deploy"\n  simulate: "crash"\n';

/** Every value the live badge's data-state takes, in order (recorded in the page, so no change is missed between two polls). */
async function recordBadgeStates(app: AppPage): Promise<void> {
  await app.page.evaluate(() => {
    const w = window as unknown as { __badge: string[] };
    w.__badge = [];
    const badge = document.querySelector('[data-testid="connection"]');
    if (!badge) throw new Error('no live badge');
    const note = (): void => {
      const state = badge.getAttribute('data-state') ?? '';
      if (w.__badge.at(-1) !== state) w.__badge.push(state);
    };
    note();
    new MutationObserver(note).observe(badge, { attributes: true, attributeFilter: ['data-state'] });
  });
}

const badgeStates = (app: AppPage): Promise<string[]> => app.page.evaluate(() => (window as unknown as { __badge: string[] }).__badge);

/**
 * Journey: the server stops under three open windows and each is left on a
 * screen that failed while it was away — Runs on "Could not load the runs", Errors on a chunk that
 * could not load, a run's page on "Could not load the run" — and each says "Hivewatch is not
 * reachable at 127.0.0.1:PORT — retrying". `serve` starts again on the same port and database:
 * every screen shows its data with no click, and the badge reads "Reconnecting…" (catching up)
 * before "Live". The Errors window gets there by reloading itself, once: the chunks that failed
 * in the outage stay failed in the page that asked for them (components/ScreenBoundary.tsx).
 */
describe('every screen recovers by itself when the server comes back', () => {
  const dir = tempDir('recovery');
  let server: ServerHandle | undefined;
  let browser: Browser;
  const apps: AppPage[] = [];
  let failed = '';

  beforeAll(async () => {
    server = await startServer({ dir, keepDir: true, flows: { 'crashes.prose': CRASHES } });
    failed = await server.startRun('user/crashes.prose', { virtualClock: true });
    await server.waitForRun(failed, ['failed']);
    browser = await launchBrowser();
    for (let i = 0; i < 3; i++) apps.push(await openApp(browser, server));
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no screen on an error or "Loading…", and says Live only once caught up', async () => {
    const [runs, errors, detail] = apps as [AppPage, AppPage, AppPage];
    // The run page's code (a chunk of its own) is loaded while the server is up, as in a window
    // the operator has used: what is pinned below is its data failing and coming back.
    await detail.go(`#/runs/${failed}`);
    await detail.page.locator('.tl-row').first().waitFor();
    await detail.go('#/runs');
    for (const app of apps) {
      await app.page.locator('[data-testid="connection"][data-state="live"]').waitFor();
      await recordBadgeStates(app);
    }
    const port = Number(new URL(server!.origin).port);
    await server!.stop();
    server = undefined;

    const banner = `Hivewatch is not reachable at 127.0.0.1:${port} — retrying`;
    for (const app of apps) await app.page.getByTestId('unreachable').filter({ hasText: banner }).waitFor();
    await runs.go('#/runs?status=failed');
    await runs.page.locator('.state-error', { hasText: 'Could not load the runs' }).waitFor();
    await errors.go('#/errors?range=all');
    await errors.page.getByTestId('screen-error').waitFor();
    await detail.go(`#/runs/${failed}`);
    await detail.page.locator('.state-error', { hasText: 'Could not load the run' }).waitFor();
    await runs.screenshot('recovery-down-runs');
    await errors.screenshot('recovery-down-errors');

    let errorsLoads = 0;
    errors.page.on('load', () => errorsLoads++);
    server = await startServer({ dir, keepDir: true, port });
    await runRow(runs.page, failed).waitFor();
    await errors.page.locator('.groups-table tbody tr', { hasText: 'RUNTIME_CRASHED' }).waitFor();
    await detail.page.locator('.tl-row').first().waitFor();
    expect(errorsLoads).toBe(1);
    for (const app of apps) {
      await app.page.locator('[data-testid="connection"][data-state="live"]').waitFor();
      expect(await app.page.getByTestId('unreachable').isHidden()).toBe(true);
      expect(await app.page.locator('.state-error, [data-testid="screen-error"], .state-loading').count()).toBe(0);
      // The reloaded window's badge started afresh, live; the others moved through the outage.
      if (app === errors) continue;
      const states = await badgeStates(app);
      // live → down (reconnecting, maybe offline) → catching up → live: never straight back to "Live".
      expect(states[0]).toBe('live');
      expect(states.slice(-2)).toEqual(['catching-up', 'live']);
      expect(states.slice(1, -2).every((s) => s === 'reconnecting' || s === 'offline')).toBe(true);
    }
    await runs.screenshot('recovery-back-runs');
    await errors.screenshot('recovery-back-errors');
    await detail.screenshot('recovery-back-run');
    // The refused connections while the server was down are the only console errors.
    for (const app of apps)
      expect(
        app.problems.filter(
          (p) => !/ERR_CONNECTION_REFUSED|Failed to load resource|Failed to fetch|dynamically imported module|the errors screen failed/i.test(p),
        ),
      ).toEqual([]);
  });
});

/**
 * Journey: the Errors charts and the flow editor are chunks of their own, fetched when a screen
 * first needs them. When that fetch is refused (a dropped connection) each says so in place, with
 * Try again; when the server then goes away and comes back, each loads its code by itself, with
 * no click and no reload of the window (which would lose an editor's draft).
 */
describe('the charts and the flow editor load their code by themselves when the server comes back', () => {
  const dir = tempDir('recovery-parts');
  let server: ServerHandle | undefined;
  let browser: Browser;
  const apps: AppPage[] = [];
  const CHARTS = /recharts-charts-[^/]*\.js(\?|$)/;
  const EDITOR = /flow-editor-view-[^/]*\.js(\?|$)/;

  beforeAll(async () => {
    server = await startServer({ dir, keepDir: true, flows: { 'crashes.prose': CRASHES } });
    const failed = await server.startRun('user/crashes.prose', { virtualClock: true });
    await server.waitForRun(failed, ['failed']);
    browser = await launchBrowser();
    for (let i = 0; i < 2; i++) apps.push(await openApp(browser, server, { hash: '#/runs' }));
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows each failure in place, then draws the charts and the editor with no click and no reload', async () => {
    const [errors, flow] = apps as [AppPage, AppPage];
    await errors.page.route(CHARTS, (route) => route.abort());
    await flow.page.route(EDITOR, (route) => route.abort());
    await errors.go('#/errors?range=all');
    await flow.go('#/flows/user/crashes.prose');
    await expect.poll(() => errors.page.getByText('The chart could not be loaded.').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(4);
    await flow.page.locator('.state-error', { hasText: 'Could not load the editor' }).waitFor();
    await errors.screenshot('recovery-charts-failed');
    await flow.page.locator('.state-error', { hasText: 'Could not load the editor' }).scrollIntoViewIfNeeded();
    await flow.screenshot('recovery-editor-failed');
    await errors.page.unroute(CHARTS);
    await flow.page.unroute(EDITOR);

    let loads = 0;
    for (const app of apps) app.page.on('load', () => loads++);
    const port = Number(new URL(server!.origin).port);
    await server!.stop();
    server = undefined;
    for (const app of apps) await app.page.getByTestId('unreachable').waitFor();
    server = await startServer({ dir, keepDir: true, port });

    await expect.poll(() => errors.page.locator('.chart-card svg.recharts-surface').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(4);
    expect(await errors.page.getByText('The chart could not be loaded.').count()).toBe(0);
    await flow.page.locator('[data-testid="flow-editor"] .cm-content').waitFor();
    expect(await flow.page.locator('[data-testid="flow-editor"] .cm-content').textContent()).toContain('simulate: "crash"');
    expect(await flow.page.getByText('Could not load the editor').count()).toBe(0);
    expect(loads).toBe(0);
    await errors.screenshot('recovery-charts-back');
    await flow.page.locator('[data-testid="flow-editor"]').scrollIntoViewIfNeeded();
    await flow.screenshot('recovery-editor-back');
  });
});
