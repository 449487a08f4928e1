import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeViolations, runAxe, seriousOrOutsideLandmarks } from './support/axe.js';
import { launchBrowser, openApp, runRow, SCREENSHOTS, type AppPage } from './support/browser.js';
import { SLOW_PARALLEL } from './support/flows.js';
import { startServer, type ServerHandle } from './support/server.js';

const FAKE = 'agent assistant:\n  runtime: "fake"\n\n';

/** A run that fails for good (a crash, no retry) and one that recovers: both Errors and Compare have something to show. */
const FLOWS = {
  'crashes.prose': `${FAKE}session: assistant\n  prompt: "Deploy"\n  simulate: "crash"\n`,
  'recovers.prose': `${FAKE}session: assistant (retry: 2, delay: "5s")\n  prompt: "Deploy"\n  simulate: "timeout, ok:deployed"\n`,
};

function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, `${name}.png`);
}

interface Screen {
  name: string;
  hash: string;
  /** The tab's title on this screen. */
  title: string;
  /** What must be on screen before axe looks (the screen's data, not its loading state). */
  ready: string;
}

/**
 * Journey: axe-core on every screen — Runs, a run's detail, the attempt
 * inspector, Errors (drilled into a group and its correlation pivot), Flows, a flow, Compare and
 * the shortcut sheet — in both themes at 1440 px and 900 px: no serious or critical violation,
 * and no content outside a landmark (axe's `region`), the notices and the unreachable banner too.
 */
describe('every screen passes axe-core in both themes at 1440 and 900 px', () => {
  let server: ServerHandle;
  let browser: Browser;
  let screens: Screen[] = [];

  beforeAll(async () => {
    server = await startServer({ flows: FLOWS });
    const failed = await server.startRun('user/crashes.prose', { virtualClock: true });
    const recovered = await server.startRun('user/recovers.prose', { virtualClock: true });
    await server.waitForRun(failed, ['failed']);
    await server.waitForRun(recovered, ['completed']);
    screens = [
      { name: 'runs', hash: '#/runs', title: 'Runs · Hivewatch', ready: `.runs-table [data-run-id="${failed}"]` },
      { name: 'run-detail', hash: `#/runs/${failed}`, title: `Run …${failed.slice(-8)} failed · Hivewatch`, ready: '.tl-row' },
      {
        name: 'inspector',
        hash: `#/runs/${recovered}?task=1%3A0&attempt=1`,
        title: `Run …${recovered.slice(-8)} completed · Hivewatch`,
        ready: '[data-testid="attempt-inspector"] .envelope-code',
      },
      { name: 'errors', hash: '#/errors?range=all', title: 'Errors · Hivewatch', ready: '.groups-table tbody tr' },
      { name: 'errors-group', hash: '#/errors?range=all&code=RUNTIME_TIMEOUT', title: 'Errors · Hivewatch', ready: '.pivot-link' },
      { name: 'flows', hash: '#/flows', title: 'Flows · Hivewatch', ready: '.flow-item' },
      { name: 'flow', hash: '#/flows/user/crashes.prose', title: 'user/crashes.prose · Flows · Hivewatch', ready: '#flow-title' },
      { name: 'compare', hash: `#/compare/${failed}/${recovered}`, title: 'Compare runs · Hivewatch', ready: '.compare-table, table' },
    ];
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function scan(page: Page, where: string, failures: string[]): Promise<void> {
    const found = seriousOrOutsideLandmarks(await runAxe(page));
    if (found.length > 0) failures.push(describeViolations(where, found));
  }

  it('the page a browser without the token sees, in both themes', async () => {
    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: { width: 900, height: 700 }, colorScheme, bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.goto(`${server.origin}/#/runs`);
        await page.getByTestId('access-page').waitFor();
        expect(await page.title()).toBe('Sign in · Hivewatch');
        await scan(page, `access page (${colorScheme})`, failures);
        await page.screenshot({ path: screenshotPath(`a11y-access-${colorScheme}`) });
      } finally {
        await context.close();
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [1440, 900]) {
      it(`${colorScheme} theme at ${width} px`, async () => {
        const app: AppPage = await openApp(browser, server, { colorScheme, bypassCSP: true });
        const failures: string[] = [];
        try {
          const { page } = app;
          await page.setViewportSize({ width, height: 900 });
          for (const screen of screens) {
            await app.go(screen.hash);
            await page.locator(screen.ready).first().waitFor();
            await scan(page, `${screen.name} (${colorScheme}, ${width} px)`, failures);
            expect(await page.title()).toBe(screen.title);
            if (width === 1440) await app.screenshot(`a11y-${screen.name}-${colorScheme}`);
          }
          await app.go('#/runs');
          await page.locator('#runs-title').waitFor();
          await page.keyboard.press('?');
          await page.getByRole('dialog').waitFor();
          await scan(page, `shortcut sheet (${colorScheme}, ${width} px)`, failures);
          await page.keyboard.press('Escape');
        } finally {
          await app.close();
        }
        if (failures.length > 0) console.error(failures.join('\n\n'));
        expect(failures, failures.join('\n\n')).toEqual([]);
      });
    }
  }
});

/**
 * Journey: the keyboard's way through the window. The first Tab stop is a skip link that lands in
 * the runs table, on the selected run's link; the table is one Tab stop whose arrow keys move
 * between a run's controls and between runs (a running run's Cancel is → away), `j` from anywhere
 * on the screen takes the focus into it, and one Tab leaves it. The destructive Cancel dialog
 * opens with the focus on "Keep running", and Enter (even on "Cancel run") never confirms it.
 */
describe('skip link and a destructive dialog from the keyboard', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'slow.prose': SLOW_PARALLEL } });
    browser = await launchBrowser();
    app = await openApp(browser, server, { bypassCSP: true });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('reaches the table in one key, moves in it with the arrows, and Enter never cancels a run', async () => {
    const { page } = app;
    const done = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await server.waitForRun(done, ['completed']);
    const runId = await server.startRun('user/slow.prose');
    await runRow(page, runId).and(page.locator('[data-status="running"]')).waitFor();
    await runRow(page, done).waitFor();
    const focused = (): Promise<string | null | undefined> =>
      page.evaluate(() => {
        const el = document.activeElement;
        const row = el?.closest<HTMLElement>('[role="row"][data-run-id]');
        return el ? `${row?.dataset.runId ?? 'outside'} ${el.getAttribute('aria-label') ?? el.textContent}` : null;
      });

    // The first Tab of the page is the skip link; Enter puts the focus on the first run's link.
    await page.reload();
    await page.locator('.runs-table [role="row"][data-run-id]').nth(1).waitFor();
    await page.keyboard.press('Tab');
    const skip = page.getByTestId('skip-link');
    expect(await skip.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await skip.isVisible()).toBe(true);
    await app.screenshot('a11y-skip-link');
    await page.keyboard.press('Enter');
    expect(await focused()).toBe(`${runId} slow`);
    // Its Cancel is one arrow away (38 Tab presses before the table was one Tab stop).
    await page.keyboard.press('ArrowRight');
    expect(await focused()).toBe(`${runId} Cancel run ${runId}`);
    await page.keyboard.press('ArrowDown');
    // The next run has no Cancel: its last control, the link, takes the focus.
    expect(await focused()).toBe(`${done} 01-happy-path`);
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe(`${done} Select run ${done}`);
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe(`${runId} Select run ${runId}`);
    await app.screenshot('a11y-grid-focus');
    // One Tab stop: Tab leaves the table, Shift+Tab comes back to where the focus was.
    await page.keyboard.press('Tab');
    expect(await focused()).not.toMatch(/^run_/);
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe(`${runId} Select run ${runId}`);
    expect(await page.locator('.runs-table [tabindex="0"]').count()).toBe(1);

    // From anywhere on the screen, j takes the focus into the table with the selection.
    await page.locator('#runs-title').click();
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('j');
    expect(await focused()).toMatch(new RegExp(`^${done} `));

    await runRow(page, runId)
      .getByRole('button', { name: `Cancel run ${runId}` })
      .click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const inDialog = (): Promise<string | null | undefined> => page.evaluate(() => document.activeElement?.textContent);
    expect(await inDialog()).toBe('Keep running');
    const found = seriousOrOutsideLandmarks(await runAxe(page));
    expect(found, describeViolations('cancel dialog', found)).toEqual([]);
    await app.screenshot('a11y-cancel-dialog');
    // Enter on the focused safe button keeps the run.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await server.api<{ run: { status: string } }>('GET', `/api/runs/${runId}`)).run.status).toBe('running');

    // With the focus moved to "Cancel run", Enter still does nothing; Escape closes.
    await runRow(page, runId)
      .getByRole('button', { name: `Cancel run ${runId}` })
      .click();
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    expect(await inDialog()).toBe('Cancel run');
    await page.keyboard.press('Enter');
    expect(await dialog.isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect((await server.api<{ run: { status: string } }>('GET', `/api/runs/${runId}`)).run.status).toBe('running');

    // Space (or a click) confirms.
    await runRow(page, runId)
      .getByRole('button', { name: `Cancel run ${runId}` })
      .click();
    await dialog.waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await server.waitForRun(runId, ['cancelled']);
    expect(app.problems).toEqual([]);
  });
});
