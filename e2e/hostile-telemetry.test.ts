import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../core/base/events.js';
import { apiFailureError } from '../core/otel/classify.js';
import { hostilePayloads } from '../core/testing/hostile-otlp.js';
import { openStore } from '../core/store/open.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../core/store/testing/test-databases.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';
import { skipTitle } from '../core/testing/skip.js';

/**
 * Journey: the window survives any data. The hostile OTLP set goes to the real
 * receiver of `hivewatch serve` (on a SQLite file and on a throwaway PostgreSQL cluster), and three
 * runs are journaled straight into the database with times no receiver would take now (after
 * Date's range, in 2300, before 1970: what an older version or another writer may have left).
 * Then Runs, every run's page and Errors in every range render, with no error state and no
 * console error.
 */

const RANGES = ['1h', '24h', '7d', '30d', 'all'] as const;

/** Past what `Date` can show (8.64e15), still inside a BIGINT and 2^53. */
const AFTER_DATE_RANGE = 9e15;
const YEAR_2300 = Date.UTC(2300, 0, 1);
const YEAR_1938 = -1e12;

/** An external run whose every event is at `ts`, with one API error. */
function storedRun(runId: string, ts: number): HivewatchEvent[] {
  const base = { runId, ts };
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1', attempt: 1 };
  const error = apiFailureError({
    runtime: 'claude-code',
    status: 529,
    message: 'Overloaded',
    timestamp: ts,
    context: {},
    correlation: { flow: 'external:claude-code', run: runId, step: 1, task: 'prompt-1', attempt: 1 },
  }).toEnvelope();
  const events = [
    {
      type: 'runStarted',
      flow: 'external:claude-code',
      flowName: `Claude Code session ${runId.slice(-8)}`,
      options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: 'claude-code' },
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
      external: { origin: 'runtime:claude-code', sessionId: runId, source: 'claude-code 2.0.50' },
    },
    { type: 'stepStarted', step: 1, frontier: [] },
    { type: 'taskStarted', step: 1, ordinal: 0, taskId: 'prompt-1', name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 },
    { type: 'attemptStarted', ...ref, ts: ts - 1_000 },
    { type: 'errorOccurred', error, caught: false, retrying: true, step: 1, ordinal: 0, taskId: 'prompt-1' },
    { type: 'attemptFailed', ...ref, durationMs: 1_000, error },
  ];
  return events.map((event, i) => ({ ...base, seq: i + 1, ...event }) as HivewatchEvent);
}

interface Engine {
  name: string;
  skip: string | null;
  database(): Promise<string>;
  stop(): Promise<void>;
}

function postgresEngine(): Engine {
  const databases = new TestDatabases();
  return {
    name: 'PostgreSQL',
    skip: postgresBinaries ? null : postgresMissing,
    async database() {
      await databases.start();
      const url = await databases.fresh('hostile');
      await databases.endPools();
      return url;
    },
    stop: () => databases.stop(),
  };
}

function sqliteEngine(): Engine {
  let dir: string | null = null;
  return {
    name: 'SQLite',
    skip: null,
    database() {
      dir = tempDir('hostile-sqlite');
      return Promise.resolve(join(dir, 'hivewatch.db'));
    },
    stop() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** No screen in the window shows an error state or its boundary. */
async function noErrorState(page: Page, where: string): Promise<void> {
  const shown = await page.locator('.state-error').allTextContents();
  expect(shown, where).toEqual([]);
}

describe.each([{ make: postgresEngine }, { make: sqliteEngine }])('hostile telemetry', ({ make }) => {
  const engine = make();
  if (engine.skip) console.warn(`${engine.name} hostile telemetry journey skipped: ${engine.skip}`);
  let db: string;
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    if (engine.skip) return;
    db = await engine.database();
    server = await startServer({ db, args: ['--otel-port', '0'] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
    await engine.stop();
  });

  it.skipIf(engine.skip !== null)(
    skipTitle(`${engine.name}: the receiver answers every payload, and Runs, each run and Errors in every range render`, engine.skip),
    async () => {
      const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
      expect(endpoint, server.output()).toBeDefined();
      const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', db], { cwd: ROOT, encoding: 'utf8' });
      const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1];
      expect(token, env).toBeDefined();
      for (const payload of hostilePayloads(Date.now())) {
        const response = await fetch(`${endpoint}/v1/${payload.signal}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': payload.contentType },
          body: new Uint8Array(payload.body),
        });
        await response.arrayBuffer();
        expect({ payload: payload.name, status: response.status }).toEqual({ payload: payload.name, status: payload.expect.status });
      }
      const store = await openStore({ path: db });
      try {
        for (const [runId, ts] of [
          ['ext-stored-after-date-range', AFTER_DATE_RANGE],
          ['ext-stored-year-2300', YEAR_2300],
          ['ext-stored-year-1938', YEAR_1938],
        ] as const) {
          await store.appendEvents(storedRun(runId, ts));
        }
      } finally {
        await store.close();
      }
      const runs = (await server.api<{ items: { id: string }[] }>('GET', '/api/runs?limit=100')).items;
      expect(runs.length).toBeGreaterThanOrEqual(12);

      app = await openApp(browser, server, { hash: '#/runs' });
      const { page } = app;
      // Runs, the default screen: every run has its row (the list is live: wait for each).
      for (const run of runs) await runRow(page, run.id).waitFor();
      await noErrorState(page, 'Runs');
      await app.screenshot(`hostile-${engine.name.toLowerCase()}-runs`);

      // Each run's page: its header, timeline and event log, once nothing is loading any more.
      for (const run of runs) {
        await app.go(`#/runs/${encodeURIComponent(run.id)}`);
        await page.waitForFunction(
          (id) =>
            document.querySelector(`section.run-detail[aria-label="Run ${id}"] #events-title`) !== null && document.querySelector('.state-loading') === null,
          run.id,
        );
        await noErrorState(page, `run ${run.id}`);
        if (run.id === 'ext-stored-after-date-range') await app.screenshot(`hostile-${engine.name.toLowerCase()}-run-after-date-range`);
      }

      // Errors in every range: a total, no loading or refreshing left, no error state.
      for (const range of RANGES) {
        await app.go(`#/errors?range=${range}`);
        await page.waitForFunction((r) => {
          const total = document.querySelector('[data-testid="errors-total"]')?.textContent ?? '';
          return (
            window.location.hash === `#/errors?range=${r}` &&
            /^[\d,]+ failures? · [\d,]+ occurrences?\b/.test(total) &&
            !total.includes('refreshing') &&
            document.querySelector('.state-loading') === null
          );
        }, range);
        await noErrorState(page, `Errors, range ${range}`);
      }
      await app.screenshot(`hostile-${engine.name.toLowerCase()}-errors-all`);
      expect(app.problems).toEqual([]);
    },
  );
});
