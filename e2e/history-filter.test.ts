import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { ErrorEnvelope } from '../core/base/errors/envelope.js';
import type { HivewatchEvent } from '../core/base/events.js';
import { openStore } from '../core/store/index.js';
import { bulkSeed } from '../bench/ui/bulk-seed.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: a history of 12,000 runs, one failed run older than the newest 10,000 (the old
 * window's preload never reached it). The operator filters failed + its error code, then
 * searches its message, finds it on the server and opens it.
 */

const HISTORY = 12_000;
const OLD_RUN = 'run_old_failure';
const NEEDLE = 'tokenizer overflow in shard 7';

/** The old run's journal: started before every bulk run, failed with AGENT_INVALID_OUTPUT. */
function oldFailure(start: number): HivewatchEvent[] {
  const flow = 'examples/02-rate-limited-api.prose';
  const error: ErrorEnvelope = {
    category: 'agent',
    code: 'AGENT_INVALID_OUTPUT',
    message: `agent answer was cut: ${NEEDLE}`,
    origin: 'agent:assistant',
    recoverable: true,
    recovery_hint: null,
    context: {},
    timestamp: start + 2_000,
    correlation: { project: null, flow, run: OLD_RUN, step: 1, task: '1:0', attempt: 1 },
  };
  const ref = { step: 1, ordinal: 0, taskId: '1:0' };
  const bodies: Record<string, unknown>[] = [
    {
      type: 'runStarted',
      flow,
      flowName: '02-rate-limited-api',
      options: { maxSteps: 100, concurrency: 4, clock: 'real', defaultAgent: null },
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
    },
    { type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'summarise' }] },
    { type: 'taskStarted', ...ref, name: 'summarise', agent: 'assistant', maxAttempts: 1 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    { type: 'attemptFailed', ...ref, attempt: 1, durationMs: 2_000, error },
    { type: 'errorOccurred', error, caught: false, retrying: false, ...ref },
    { type: 'taskFailed', ...ref, attempts: 1, error, cancelled: false },
    { type: 'runFailed', error },
  ];
  return bodies.map((body, i) => ({ ...body, runId: OLD_RUN, seq: i + 1, ts: start + (i < 4 ? 0 : 2_000) }) as HivewatchEvent);
}

describe('history: a failed run older than the newest 10,000', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('history');
    const dbPath = `${dir}/hivewatch.db`;
    const seeded = bulkSeed(dbPath, { runs: HISTORY, errors: HISTORY, now: Date.now() });
    const store = await openStore({ path: dbPath });
    await store.appendEvents(oldFailure(seeded.from - 60_000));
    await store.close();
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the whole history count, newest first, one page at a time', async () => {
    const { page } = app;
    await page
      .getByTestId('runs-count')
      .filter({ hasText: `${(HISTORY + 1).toLocaleString('en-US')} runs` })
      .waitFor();
    const first = await page.locator('.runs-table [role="row"][data-run-id]').first().getAttribute('data-run-id');
    expect(first).toBe(`run_bulk${String(HISTORY - 1).padStart(7, '0')}`);
    // Paged, not preloaded: far fewer rows than the history are in the table.
    const rows = await page.getByRole('grid', { name: 'Runs' }).getAttribute('aria-rowcount');
    expect(Number(rows)).toBeLessThan(1_000);
    await app.screenshot('history-runs');
  });

  it('finds the old failed run by status and error code, then by its message, and opens it', async () => {
    const { page } = app;
    await page
      .getByRole('group', { name: 'Filter by status' })
      .getByRole('button', { name: /^failed/ })
      .click();
    await page.waitForURL(/status=failed/);
    await page.getByRole('textbox', { name: 'Filter by error code' }).fill('AGENT_INVALID_OUTPUT');
    await page.waitForURL(/code=AGENT_INVALID_OUTPUT/);
    // The chips count under the filter (every filter but status): failed ones with this code.
    const failedChip = page.getByRole('group', { name: 'Filter by status' }).getByRole('button', { name: /^failed/ });
    const expected = await server.api<{ total: number }>('GET', '/api/runs/counts?status=failed&code=AGENT_INVALID_OUTPUT');
    expect(expected.total).toBeGreaterThan(1);
    await page
      .getByTestId('runs-count')
      .filter({ hasText: `${expected.total.toLocaleString('en-US')} runs match` })
      .waitFor();
    expect(await failedChip.locator('.chip-count').textContent()).toBe(expected.total.toLocaleString('en-US'));
    await page.getByRole('searchbox', { name: 'Search runs' }).fill('shard 7');
    await page.waitForURL(/q=shard/);
    await page.getByTestId('runs-count').filter({ hasText: '1 run matches' }).waitFor();
    await runRow(page, OLD_RUN).waitFor();
    expect(await page.locator('.runs-table [role="row"][data-run-id]').count()).toBe(1);
    await app.screenshot('history-filtered');
    await runRow(page, OLD_RUN).getByRole('link').first().click();
    await page.waitForURL(new RegExp(`#/runs/${OLD_RUN}$`));
    await page.locator('.run-header').getByText('failed').first().waitFor();
    await page.getByText(NEEDLE).first().waitFor();
    await app.screenshot('history-old-run');
    expect(app.problems).toEqual([]);
  });
});
