import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { HivewatchEvent } from '../core/base/events.js';
import { flowDigest } from '../core/flow/plan/digest.js';
import { openStore } from '../core/store/index.js';
import { JournalBuilder, type ErrorSpec } from '../core/store/testing/journal-builder.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: on a day's history where one issue jumped (2 merge conflicts the day before, 20 in the
 * last day, first seen after its flow changed) and another held steady (5 and 5 timeouts), the
 * operator sorts the issues by trend and finds the one that jumped first, "+900 %"; opens it from
 * its row; reads why its status, its latest occurrence and the runs it hit; retries those runs;
 * resolves it; and Esc takes them back to the table with the window and sort they had, where
 * the resolved issue has left the unresolved list and, with the issue status set to Resolved,
 * every panel shows only its occurrences. Both new views axe-clean in both themes at 1440 and
 * 900 px, looked at in screenshots.
 */

const HOUR = 3_600_000;
const FLOW = 'examples/01-happy-path.prose';
const CONFLICT: ErrorSpec = { code: 'GIT_MERGE_CONFLICT', origin: 'git', message: 'merge conflict in src/app.ts' };
const TIMEOUT: ErrorSpec = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'runtime fake timed out after 30s' };
const V1 = 'agent assistant:\n  runtime: "fake"\n\nsession: assistant\n  prompt: "merge the branch"\n';
const V2 = 'agent assistant:\n  runtime: "fake"\n\nsession: assistant\n  prompt: "merge the branch, then rebase"\n';

/** A run of the happy-path flow at `at` that ran `text` and failed on `error` (or completed). */
function run(id: string, at: number, text: string, error: ErrorSpec | null): HivewatchEvent[] {
  const b = new JournalBuilder(id, { start: at, flow: FLOW, flowName: '01-happy-path' });
  b.push({
    type: 'runStarted',
    flow: FLOW,
    flowName: '01-happy-path',
    options: { maxSteps: 100, concurrency: 4, clock: 'real', defaultAgent: 'fake' },
    resumedFrom: null,
    retryOf: null,
    resumeStep: 0,
    flowDigest: flowDigest(text),
    flowText: text,
  });
  b.runStep([{ name: 'merge', attempts: [error ?? 'ok'] }]);
  return (error ? b.fail() : b.complete()).events;
}

function history(now: number): HivewatchEvent[] {
  // Each batch inside one clock hour (its minutes from the hour's start), so each is one bucket
  // of the trend whatever minute the journey runs at.
  const hour = Math.floor(now / HOUR) * HOUR;
  const at = (hoursAgo: number, i: number): number => hour - hoursAgo * HOUR + i * 60_000;
  return [
    ...run('run-v1', at(40, 0), V1, null),
    ...Array.from({ length: 5 }, (_, i) => run(`run-slow-before-${i}`, at(38, i), V1, TIMEOUT)).flat(),
    ...Array.from({ length: 2 }, (_, i) => run(`run-conflict-before-${i}`, at(30, i), V2, CONFLICT)).flat(),
    ...Array.from({ length: 5 }, (_, i) => run(`run-slow-${i}`, at(9, i), V2, TIMEOUT)).flat(),
    ...Array.from({ length: 20 }, (_, i) => run(`run-conflict-${i}`, at(4, i), V2, CONFLICT)).flat(),
  ];
}

describe('the issue page', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('issue-page');
    const store = await openStore({ path: `${dir}/hivewatch.db` });
    await store.appendEvents(history(Date.now()));
    await store.close();
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/errors?range=24h', bypassCSP: true });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  const rows = (page: Page) => page.locator('.issues-table tbody tr');

  /** Screenshots at 1440 and 900 px in both themes, no sideways scrolling, and axe on the whole page. */
  async function lookAt(page: Page, name: string, changed: string): Promise<void> {
    for (const width of [1440, 900]) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme: scheme });
        await page
          .locator(changed)
          .first()
          .evaluate((e) => e.scrollIntoView({ block: 'start' }));
        await app.screenshot(`issue-page-${name}-${width}-${scheme}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${name} at ${width} px`).toBe(0);
        // Nor inside the issues table's own scroll box: every column, the actions too, in view.
        const inner = await page.evaluate(() => Math.max(0, ...[...document.querySelectorAll('.groups-table-wrap')].map((e) => e.scrollWidth - e.clientWidth)));
        expect(inner, `${name}'s tables at ${width} px`).toBe(0);
        const serious = seriousOrCritical(await runAxe(page));
        expect(serious, describeViolations(`${name} at ${width} px, ${scheme}`, serious)).toEqual([]);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
  }

  it('sort by trend finds the issue that jumped; its page tells everything; resolve it; Esc goes back with the filters', async () => {
    const { page } = app;
    await rows(page).first().waitFor();
    await page.getByLabel('Sort by').selectOption('trend');
    await page.waitForURL(/isort=trend/);
    await expect.poll(() => rows(page).first().locator('code').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('GIT_MERGE_CONFLICT');
    const jumped = rows(page).first();
    expect(await jumped.getByTestId('issue-change').textContent()).toBe('+900 %');
    expect(await jumped.getByTestId('issue-events').textContent()).toBe('20');
    expect(await rows(page).nth(1).getByTestId('issue-change').textContent()).toBe('±0 %');
    // The sparkline carries its values: the current hour is "so far", not a finished hour.
    expect(await jumped.getByTestId('sparkline').getAttribute('aria-label')).toMatch(
      /^GIT_MERGE_CONFLICT per hour, 20 events over 25 hours; busiest .*: 20 events; this hour so far 0$/,
    );
    // Each hour has its own hover target, drawn once a pointer reaches the line.
    const spark = jumped.getByTestId('sparkline');
    expect(await spark.locator('rect.sparkline-hit').count()).toBe(0);
    await spark.hover();
    await expect.poll(() => spark.locator('rect.sparkline-hit').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(25);
    expect(await spark.locator('rect.sparkline-hit title').last().textContent()).toMatch(/ \(so far\): 0 events$/);
    await lookAt(page, 'table', '#groups-title');

    // One click on the row opens the page, carrying the window and the sort.
    const id = (await jumped.getAttribute('data-fingerprint')) as string;
    await jumped.locator('.group-message').click();
    await page.waitForURL(new RegExp(`#/issues/${id}\\?.*isort=trend`));
    await expect
      .poll(() => page.getByTestId('issue-why').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toMatch(/new: first seen less than 72 hours ago and nobody has acted on it; 0 events in the last hour, forecast 200/);
    expect(await page.getByTestId('issue-period-events').textContent()).toMatch(/^20 \+900 % \(before: 2\)$/);
    // The trend drawn by recharts: the busiest hour carries its value, the current one reads "so far".
    await expect.poll(() => page.locator('.issue-trend .trend-value').allTextContents(), { timeout: PAGE_TIMEOUT_MS }).toEqual(['20', '0 so far']);
    // Its latest occurrence, with its envelope and a link to its attempt; the runs it hit.
    expect(await page.getByTestId('latest-attempt').getAttribute('href')).toBe('#/runs/run-conflict-19?task=1%3A0&attempt=1');
    expect(await page.locator('.issue-latest [data-testid="error-envelope"] .envelope-code').textContent()).toBe('GIT_MERGE_CONFLICT');
    await expect.poll(() => page.locator('.issue-runs-table tbody tr').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(20);
    expect(await page.locator('.issue-runs-table tbody tr').first().getAttribute('data-run-id')).toBe('run-conflict-19');
    // The runs reported no usage: the period's cost says so, never "$0.00".
    await expect.poll(() => page.getByTestId('issue-period-cost').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('no usage reported');
    expect(await page.getByTestId('flow-change').getAttribute('data-changed')).toBe('true');
    expect(await page.getByTestId('flow-change').locator('strong').first().textContent()).toBe('First seen after 01-happy-path changed.');
    await lookAt(page, 'page', '#issue-title');
    await page.locator('.flow-diff summary').click();
    expect(await page.locator('.flow-diff .diff-added').textContent()).toContain('merge the branch, then rebase');
    await lookAt(page, 'runs-and-flow', '[data-testid="flow-change"]');

    // Retry these runs: the bulk retry's confirmation, then each run retried.
    await page.getByTestId('retry-affected').click();
    const confirm = page.getByTestId('bulk-confirm');
    await confirm.waitFor();
    await page.getByRole('button', { name: /^Retry 22 runs$/ }).click();
    await expect.poll(() => page.getByTestId('bulk-status').textContent(), { timeout: 60_000 }).toBe('22 retried, 0 refused');

    // Resolve it from its page: the why says who, and its activity has the change.
    await page.locator('.issue-header-actions').getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => page.getByTestId('issue-why').textContent(), { timeout: PAGE_TIMEOUT_MS }).toMatch(/resolved by window$/);
    await expect.poll(() => page.getByTestId('issue-activity').locator('[data-kind="resolved"]').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(1);

    // Esc: back to the table with the window and the sort; the unresolved list no longer has it.
    await page.keyboard.press('Escape');
    await page.waitForURL(/#\/errors\?.*isort=trend/);
    expect(page.url()).not.toContain('range=');
    await rows(page).first().waitFor();
    expect(await rows(page).first().locator('code').textContent()).toBe('RUNTIME_TIMEOUT');
    expect(await page.getByLabel('Sort by').inputValue()).toBe('trend');

    // Issue status Resolved: every panel shows only its occurrences.
    await page.getByLabel('Issue status').selectOption('resolved');
    await page.waitForURL(/istatus=resolved/);
    // The unresolved list stays up until the resolved one arrives: wait for the resolved issue itself.
    await expect.poll(() => rows(page).first().getAttribute('data-fingerprint'), { timeout: PAGE_TIMEOUT_MS }).toBe(id);
    expect(await rows(page).count()).toBe(1);
    await expect
      .poll(() => page.locator('.occurrence .occ-code').allTextContents(), { timeout: PAGE_TIMEOUT_MS })
      .toSatisfy((codes: string[]) => codes.length > 0 && codes.every((c) => c === 'GIT_MERGE_CONFLICT'));
    await expect
      .poll(() => page.getByTestId('errors-total').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toBe('20 failures · 20 occurrences (0 handled, 20 unhandled)');
    expect(app.problems).toEqual([]);
    // Twelve looks (screenshot, overflow, axe) and 22 retried runs: more than the default minute on a shared machine.
  }, 240_000);
});
