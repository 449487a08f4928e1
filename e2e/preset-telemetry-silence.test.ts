import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunDetail } from '../core/service/api.js';
import { writeCliStandIn } from '../core/testing/cli-stand-in.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: `serve` with its receiver runs two claude-code preset attempts whose CLI (a stand-in
 * that works on and never exports) sends no telemetry at all: one given the receiver's exporter,
 * one whose agent's `env:` turned its telemetry off. Past twice Claude Code's interval the first
 * reads "no telemetry since the attempt started … (expected every 5 s)" on its Runs row and in
 * its header; the second never does. Screens at 1440 and 900 px in both themes, axe on each.
 */

/** Works on without a word: no result, no export, until it is stopped. */
const SILENT_CLI = 'setInterval(() => undefined, 1_000);';

const flowOf = (claude: string, env: string): string => `# A coding session whose CLI never reports.
agent coder:
  runtime: "claude-code"
  command: "${claude}"${env}

session: coder
  prompt: "Fix the flaky test"
`;

async function showAs(page: Page, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  await page.locator('.topbar').waitFor();
}

async function scan(page: Page, where: string, failures: string[]): Promise<void> {
  const serious = seriousOrCritical(await runAxe(page));
  if (serious.length > 0) failures.push(describeViolations(where, serious));
}

describe('a preset attempt whose CLI never sent telemetry, seen in the window', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('preset-telemetry-silence');
    const claude = writeCliStandIn(dir, 'claude', SILENT_CLI);
    const flows = {
      'exporting.prose': flowOf(claude, ''),
      'telemetry-off.prose': flowOf(claude, '\n  env: ["CLAUDE_CODE_ENABLE_TELEMETRY=0"]'),
    };
    server = await startServer({ dir, flows, args: ['--otel-port', '0'] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('flags the attempt given an exporter on its row and in its header, never the one without', { timeout: 180_000 }, async () => {
    // The one without an exporter starts first: by the time the other is flagged, it is older still.
    const off = await server.startRun('user/telemetry-off.prose');
    const exporting = await server.startRun('user/exporting.prose');
    // A silence that begins while a page watches shows with the row's next fetch: the page opens once it has begun.
    await expect
      .poll(async () => (await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(exporting)}`)).run.telemetrySilence?.lastSeenAt, {
        timeout: 60_000,
        interval: 1_000,
      })
      .toBeNull();
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(off)}`)).run).toMatchObject({ status: 'running' });
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(off)}`)).run.telemetrySilence).toBeUndefined();
    app = await openApp(browser, server, { hash: '#/runs', bypassCSP: true });
    const { page } = app;
    const row = page.locator(`[role="row"][data-run-id="${exporting}"]`);
    const line = row.getByTestId('telemetry-silence');
    await line.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await line.textContent()).toMatch(/^no telemetry since the attempt started (\d+ s|\d+ min) ago \(expected every 5 s\)$/);
    const offRow = page.locator(`[role="row"][data-run-id="${off}"]`);
    expect(await offRow.locator('.badge.status').getAttribute('data-status')).toBe('running');
    expect(await offRow.getByTestId('telemetry-silence').count()).toBe(0);

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await line.waitFor({ timeout: PAGE_TIMEOUT_MS });
        expect(await offRow.getByTestId('telemetry-silence').count()).toBe(0);
        await scan(page, `runs, a preset attempt never heard from (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`preset-telemetry-silence-runs-${colorScheme}-${width}`);
      }
    }

    await row.locator('.run-link').click();
    const notice = page.getByTestId('telemetry-silence-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /^No telemetry since the attempt started (\d+ s|\d+ min) ago \(expected every 5 s\) from the claude-code CLI of task [^,]+, attempt 1\. Its exporter may not have started .*: nothing has arrived from it\.$/,
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await notice.waitFor();
        await scan(page, `run header, a preset attempt never heard from (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`preset-telemetry-silence-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    // Cancelled, the attempt ends: nothing is expected of its CLI any more.
    for (const runId of [exporting, off]) await server.api('POST', `/api/runs/${encodeURIComponent(runId)}/cancel`, {});
    await server.waitForRun(exporting, ['cancelled']);
    await server.waitForRun(off, ['cancelled']);
    await notice.waitFor({ state: 'detached' });
    expect(app.problems).toEqual([]);
  });
});
