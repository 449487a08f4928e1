import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/service/api.js';
import { FAILING_FLOW } from '../core/service/alerts/testing.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journeys: screens that read summaries follow what happens while they are open, with no click on
 * Reload (renderer/lib/refresh-pacer.ts paces each re-read: within a second, never starved).
 *
 * - The Errors screen under errors that never stop: a run whose every step's first attempt times
 *   out (the fake runtime's timeout, about a second) and is retried 100 ms later journals an error
 *   about every second for half an hour; the screen's occurrence count must move again and again
 *   while the run still runs. (It once refreshed 3 s after the *last* new error, so under such a
 *   stream it never refreshed.)
 * - The Flows screen: each failed run of a flow moves that flow's failures and last run.
 * - Compare: a run compared while it runs shows its end (its status badge) when it ends.
 */

const STORM = `agent writer:
  runtime: "fake"

repeat 2000 as i:
  session "Write part {i}" (retry: 2, backoff: "fixed", delay: "100ms")
    agent: writer
    simulate: "timeout, ok"
`;

let server: ServerHandle;
let browser: Browser;

beforeAll(async () => {
  server = await startServer({ flows: { 'storm.prose': STORM, 'fails.prose': FAILING_FLOW } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const runPath = (runId: string): string => `/api/runs/${encodeURIComponent(runId)}`;

/** A storm run, cancelled and waited for however the journey ends. */
async function withStorm(journey: (runId: string) => Promise<void>): Promise<void> {
  const runId = await server.startRun('user/storm.prose');
  try {
    await journey(runId);
  } finally {
    await server.api('POST', `${runPath(runId)}/cancel`, {}).catch(() => undefined);
    await server.waitForRun(runId, ['cancelled', 'failed', 'completed']);
  }
}

describe('screens that follow what happens while they are open', () => {
  it('the Errors screen moves its occurrence count while the errors keep coming, not only once they stop', async () => {
    const app = await openApp(browser, server, { hash: '#/errors?range=1h' });
    try {
      await withStorm(async (runId) => {
        const { page } = app;
        const occurrences = async (): Promise<number> => {
          const text = (await page.getByTestId('errors-occurrences').textContent()) ?? '';
          return Number(/([\d,]+) occurrence/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);
        };
        const seen: number[] = [];
        // Three different counts in turn, each higher than the one before.
        for (let i = 0; i < 3; i += 1) {
          const before = seen.at(-1) ?? 0;
          await expect.poll(occurrences, { timeout: PAGE_TIMEOUT_MS }).toBeGreaterThan(before);
          seen.push(await occurrences());
        }
        // The errors never paused: the run was still at it when the third count was drawn.
        const detail = await server.api<RunDetail>('GET', runPath(runId));
        expect(detail.run.status).toBe('running');
      });
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('the Flows screen counts each failed run of a flow in its row as it fails', async () => {
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
      await app.screenshot('live-flows');
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('Compare shows the end of a run that was running when the page opened', async () => {
    const done = await server.startRun('examples/01-happy-path.prose', { virtualClock: true });
    await server.waitForRun(done, ['completed']);
    await withStorm(async (running) => {
      const app = await openApp(browser, server, { hash: `#/compare/${encodeURIComponent(running)}/${encodeURIComponent(done)}` });
      try {
        const { page } = app;
        const leftStatus = () => page.locator('.compare thead th').nth(1).locator('.badge.status').getAttribute('data-status');
        await expect.poll(leftStatus, { timeout: PAGE_TIMEOUT_MS }).toBe('running');
        await server.api('POST', `${runPath(running)}/cancel`, {});
        await server.waitForRun(running, ['cancelled']);
        await expect.poll(leftStatus, { timeout: PAGE_TIMEOUT_MS }).toBe('cancelled');
        await app.screenshot('live-compare');
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
      }
    });
  });
});
