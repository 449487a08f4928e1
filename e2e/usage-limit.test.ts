import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { HivewatchEvent } from '../core/service/api.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { BIN, ROOT, eventsOf, startServer, tempDir, type ServerHandle } from './support/server.js';
import { usageLimitSession } from '../core/testing/usage-limit-otlp.js';
import { writeCliStandIn } from '../core/testing/cli-stand-in.js';

/**
 * Journey: a run whose agent (the claude-code preset running a stand-in that
 * prints Claude Code's stream-json result) hits a usage limit that resets in an hour waits for
 * the reset; the Runs list filtered to "waiting for limit" (status=waiting-limit) shows it with
 * its countdown, the run header says until when, and Cancel from the window ends the run at once,
 * an hour before the reset. Screens at 1400 and 900 px in both themes, axe on each.
 */

/** Prints the session-limit notice Claude Code ends with, its reset an hour from now as a wall time in UTC ("resets 7:40am (UTC)"), read as the end of that minute. */
const STAND_IN = `
const at = new Date(Date.now() + 3_600_000);
const h = at.getUTCHours();
const wall = (h % 12 === 0 ? 12 : h % 12) + ':' + String(at.getUTCMinutes()).padStart(2, '0') + (h < 12 ? 'am' : 'pm');
const result = "You've reached your session limit · resets " + wall + ' (UTC)';
process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result, permission_denials: [] }));
process.exitCode = 1;
`;

const flowOf = (claude: string): string => `# A coding session whose agent has hit its subscription's usage limit.
agent coder:
  runtime: "claude-code"
  command: "${claude}"

session: coder (retry: 2)
  prompt: "Fix the flaky test"
`;

/**
 * The theme and width to look at. The page is loaded again: the timeline takes its colours from
 * the theme when it renders, and axe must not look between the switch and that render.
 */
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

describe('a run waiting for a usage-limit reset, seen and cancelled from the window', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('usage-limit');
    const claude = writeCliStandIn(dir, 'claude', STAND_IN);
    // The receiver on a free port: the external session below is sent to it.
    server = await startServer({ dir, flows: { 'usage-limit.prose': flowOf(claude) }, args: ['--otel-port', '0'] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('filters to the waiting run with its countdown, says until when in its header, and cancels it at once', async () => {
    const runId = await server.startRun('user/usage-limit.prose');
    app = await openApp(browser, server, { hash: '#/runs?status=waiting-limit', bypassCSP: true });
    const { page } = app;
    const row = runRow(page, runId);
    const badge = row.getByTestId('limit-wait');
    await badge.waitFor({ timeout: 45_000 });
    expect(await badge.textContent()).toMatch(/^limit resets in (1 h|1 h 01 min)$/);
    const chip = page.getByRole('button', { name: /waiting for limit/ });
    expect(await chip.getAttribute('aria-pressed')).toBe('true');
    // The counts come from their own query, which may answer after the rows: waited for, not read once.
    await expect.poll(() => chip.locator('.chip-count').textContent(), { timeout: 10_000 }).toBe('1');
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 10_000 }).toContain('1 waiting for limit');

    const journaled = (await eventsOf(server, runId)).find((e): e is Extract<HivewatchEvent, { type: 'retryScheduled' }> => e.type === 'retryScheduled');
    expect(journaled?.usageLimit?.reported).toMatch(/^You've reached your session limit · resets \d{1,2}:\d{2}[ap]m \(UTC\)$/);
    const resetAt = journaled?.usageLimit?.resetAt as number;
    // The wait is measured from the failure's time: the next attempt is due at the reset plus the
    // moments the engine took to journal the backoff, never before it.
    expect(journaled?.nextAttemptAt).toBeGreaterThanOrEqual(resetAt);
    expect(journaled?.nextAttemptAt).toBeLessThan(resetAt + 60_000);

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1400, 900]) {
        await showAs(page, colorScheme, width);
        await badge.waitFor();
        await scan(page, `runs, waiting-limit (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`usage-limit-runs-${colorScheme}-${width}`);
      }
    }

    await row.locator('.run-link').click();
    const notice = page.getByTestId('limit-wait-notice');
    await notice.waitFor();
    expect(await notice.getAttribute('aria-live')).toBe('polite');
    expect(await notice.textContent()).toMatch(
      /^Waiting for the usage limit to reset at \d{2}:\d{2} · resets in (1 h|1 h 01 min)\. Cancel ends the wait at once\.$/,
    );
    expect(await notice.locator('time').getAttribute('datetime')).toBe(new Date(journaled?.nextAttemptAt as number).toISOString());
    // One countdown and one wording: the timeline says what the header says, and offers no Retry now.
    const timelineWait = page.getByTestId('timeline-limit-wait');
    await timelineWait.waitFor();
    // Read together (polled: a minute may turn between the two renders of one tick).
    const both = (): Promise<string[]> =>
      page.evaluate(() => [
        document.querySelector('[data-testid="limit-wait-notice"]')?.textContent ?? '',
        document.querySelector('[data-testid="timeline-limit-wait"]')?.textContent ?? '',
      ]);
    await expect
      .poll(
        async () => {
          const [header = '', timeline = ''] = await both();
          return `${/resets in (59 min|1 h 01 min|1 h)/.exec(header)?.[0] ?? header} | ${timeline}`;
        },
        { timeout: 5_000 },
      )
      .toMatch(/^(resets in (?:59 min|1 h 01 min|1 h)) \| attempt 2 · limit \1$/);
    expect(await page.locator('.tl-row').getByRole('button', { name: 'Retry now' }).count()).toBe(0);
    const resetAtText = /reset at (\d{2}:\d{2})/.exec((await notice.textContent()) ?? '')?.[1];
    expect(await page.locator('.tl-row .seg-backoff .seg-label').first().textContent()).toBe(`until ${resetAtText}`);
    // Nor does a bulk "retry now" cut the wait short.
    const bulk = await server.api<{ done: number; results: { outcome: string; message?: string }[] }>('POST', '/api/runs/bulk', {
      action: 'retryNow',
      runIds: [runId],
    });
    expect(bulk.done).toBe(0);
    expect(bulk.results[0]?.message).toBe(
      `run ${runId} waits for its usage limit to reset; an attempt now would meet the limit again (cancel it to stop waiting)`,
    );
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1400, 900]) {
        await showAs(page, colorScheme, width);
        await notice.waitFor();
        await page.locator('.tl-waiting').waitFor();
        await scan(page, `run header, waiting (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`usage-limit-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    await showAs(page, 'light', 1400);
    await page.locator('.run-header').getByRole('button', { name: 'Cancel run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor();
    await notice.waitFor({ state: 'detached' });
    const detail = await server.waitForRun(runId, ['cancelled']);
    // Ended now, not at the reset: no second attempt ever started.
    expect(detail.run.endedWall).toBeLessThan(resetAt);
    expect(detail.tasks[0]?.attempts).toHaveLength(1);
    expect(detail.run.waitingUntil).toBeNull();
    await app.screenshot('usage-limit-run-cancelled');

    await app.go('#/runs?status=waiting-limit');
    await page.getByText('No runs match these filters').waitFor();
    expect(await row.count()).toBe(0);
    expect(app.problems).toEqual([]);
  });
  it('shows an external Claude Code session stopped by its usage limit, filtered with its countdown, and stops watching it', async () => {
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    expect(endpoint, server.output()).toBeDefined();
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1];
    // The recorded session (core/testing/usage-limit-otlp.ts) moved to fail a minute ago, its
    // "resets h:mmam (UTC)" moved with it: about two hours ahead at any hour of the day.
    const recorded = usageLimitSession();
    const session = usageLimitSession(Date.now() - 60_000 - recorded.failedAt);
    for (const payload of session.payloads) {
      const response = await fetch(`${endpoint}/v1/${payload.signal}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: new Uint8Array(payload.body),
      });
      expect(response.status, await response.text()).toBe(200);
    }

    await app.go('#/runs?status=waiting-limit');
    const { page } = app;
    const row = page.locator('[role="row"][data-run-id^="ext-claude-code-"]');
    const badge = row.getByTestId('limit-wait');
    await badge.waitFor();
    const runId = (await row.getAttribute('data-run-id')) as string;
    expect(await badge.textContent()).toMatch(/^limit resets in (\d+ min|\d+ h( \d{2} min)?)$/);
    expect(await badge.getAttribute('title')).toMatch(
      /^stopped by the usage limit until .+It continues when the agent sends telemetry again .+Hivewatch cannot restart it\.$/,
    );
    expect(await row.getByRole('button', { name: `Stop watching session ${runId}` }).count()).toBe(1);
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: 10_000 }).toContain('1 waiting for limit');
    const reached = (await eventsOf(server, runId)).find(
      (e): e is Extract<HivewatchEvent, { type: 'externalLimitReached' }> => e.type === 'externalLimitReached',
    );
    expect(reached?.reported).toBe(session.reported);
    expect(reached?.resetAt).toBeGreaterThan(Date.now());

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1400, 900]) {
        await showAs(page, colorScheme, width);
        await badge.waitFor();
        await scan(page, `runs, external session stopped (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`usage-limit-external-runs-${colorScheme}-${width}`);
      }
    }

    await row.locator('.run-link').click();
    const notice = page.getByTestId('limit-wait-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /^Stopped by the usage limit until \d{2}:\d{2} · resets in .+\. It continues when the agent sends telemetry again \(you resume it, or the CLI waits for the reset itself\); Hivewatch cannot restart it\. Stop watching ends its run here\.$/,
    );
    expect(await notice.locator('time').getAttribute('datetime')).toBe(new Date(reached?.resetAt as number).toISOString());
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1400, 900]) {
        await showAs(page, colorScheme, width);
        await notice.waitFor();
        await scan(page, `run header, external session stopped (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`usage-limit-external-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    await showAs(page, 'light', 1400);
    await page.locator('.run-header').getByRole('button', { name: 'Stop watching' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop watching this session?' });
    await dialog.getByRole('button', { name: 'Stop watching' }).click();
    await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor();
    await notice.waitFor({ state: 'detached' });
    const detail = await server.waitForRun(runId, ['cancelled']);
    expect(detail.run.waitingUntil).toBeNull();
    const cancelled = (await eventsOf(server, runId)).find((e): e is Extract<HivewatchEvent, { type: 'runCancelled' }> => e.type === 'runCancelled');
    expect(cancelled?.cause.reason).toBe('the operator stopped watching this session (Hivewatch cannot stop the agent)');
    await app.screenshot('usage-limit-external-run-cancelled');

    await app.go('#/runs?status=waiting-limit');
    await page.getByText('No runs match these filters').waitFor();
    expect(app.problems).toEqual([]);
  });
});
