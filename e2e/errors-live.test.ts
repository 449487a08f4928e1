import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/service/api.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the Errors screen keeps up with errors that never stop. A run whose every step's first
 * attempt times out and is retried 100 ms later journals an error every few hundred milliseconds
 * for minutes; with the screen open its occurrence count must move again and again while the run
 * is still running. (The screen once refreshed 3 s after the last new error, so under such a
 * stream it never refreshed until the run ended.)
 */

const STORM = `agent writer:
  runtime: "fake"

repeat 2000 as i:
  session "Write part {i}" (retry: 2, backoff: "fixed", delay: "100ms")
    agent: writer
    simulate: "timeout, ok"
`;

describe('the Errors screen under a steady stream of errors', () => {
  let server: ServerHandle;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer({ flows: { 'storm.prose': STORM } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('moves its occurrence count while the errors keep coming, not only once they stop', async () => {
    const app = await openApp(browser, server, { hash: '#/errors?range=1h' });
    const runId = await server.startRun('user/storm.prose');
    try {
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
      expect(seen[2]!).toBeGreaterThan(seen[0]!);
      // The errors never paused: the run was still at it when the third count was drawn.
      const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
      expect(detail.run.status).toBe('running');
      expect(app.problems).toEqual([]);
    } finally {
      await server.api('POST', `/api/runs/${encodeURIComponent(runId)}/cancel`, {}).catch(() => undefined);
      await server.waitForRun(runId, ['cancelled', 'failed', 'completed']);
      await app.close();
    }
  });
});
