import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import type { ErrorCount, HivewatchEvent } from '../core/service/api.js';
import { openStore } from '../core/store/open.js';
import { postgresBinaries, postgresMissing, TestDatabases } from '../core/store/testing/test-databases.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { BIN, isolatedEnv, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';
import { skipTitle } from '../core/testing/skip.js';

/**
 * Journey ("Done when"): two `hivewatch run` processes in terminals and one
 * `hivewatch serve`, all on one database. Both runs are live in the window; one is cancelled from
 * its Cancel button (its CLI exits 3), the other is retried now from its timeline and completes;
 * the window's error count equals the journal's `errorOccurred` events. The same journey runs on
 * a team database (a throwaway PostgreSQL cluster) and on a SQLite file.
 */

/** A rate limit, then an hour in backoff: live until the window cancels it or retries it now. */
const WAITS_IN_BACKOFF = `# Rate limited once, then waits an hour before its next attempt.
session "Wait for the rate limit" (retry: 2, backoff: "exponential", delay: "1h", max-delay: "1h")
  simulate: "rate_limit, ok"
`;

const CANCELLED_EXIT = 3;
const COMPLETED_EXIT = 0;

interface CliRun {
  runId: string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  stderr(): string;
  child: ChildProcess;
}

/** `hivewatch run <flow> --db <db> --agent fake --json`; resolves once its first event is journaled. */
async function startCliRun(flowPath: string, db: string): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, 'run', flowPath, '--db', db, '--agent', 'fake', '--json'], {
    cwd: ROOT,
    env: isolatedEnv(dirname(flowPath)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await Promise.race([
    once(lines, 'line') as Promise<[string]>,
    exited.then(([code]) => {
      throw new Error(`hivewatch run exited (${code}) before its first event:\n${stderr}`);
    }),
  ]);
  // Keep draining stdout so the child never blocks on a full pipe.
  lines.on('line', () => undefined);
  return { runId: (JSON.parse(first[0]) as HivewatchEvent).runId, exited, stderr: () => stderr, child };
}

/** The number of occurrences in the Errors screen's header ("0 failures · 3 occurrences (3 handled, 0 unhandled)"). */
function errorTotalOf(text: string): number | null {
  const match = /^([\d,]+) occurrences?\b/.exec(text);
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : null;
}

/** Waits until the Errors screen's header counts `expected` error occurrences; fails with what it shows. */
async function untilErrorTotal(page: Page, expected: number): Promise<void> {
  const total = page.getByTestId('errors-occurrences');
  try {
    await page.waitForFunction(
      (n) => new RegExp(`^${n} occurrences?\\b`).test(document.querySelector('[data-testid="errors-occurrences"]')?.textContent ?? ''),
      expected,
      { timeout: 20_000 },
    );
  } catch {
    const text = (await total.textContent()) ?? '';
    expect(errorTotalOf(text), `the Errors screen shows "${text}"`).toBe(expected);
  }
}

interface Engine {
  name: string;
  skip: string | null;
  /** A fresh database for the journey: a postgres:// URL or a SQLite file path. */
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
      const url = await databases.fresh('team');
      // The migrating pool is done; the subprocesses open their own.
      await databases.endPools();
      return url;
    },
    // Safe before (or after a failed) start: it ends what exists.
    stop: () => databases.stop(),
  };
}

function sqliteEngine(): Engine {
  let dir: string | null = null;
  return {
    name: 'SQLite',
    skip: null,
    database() {
      dir = tempDir('team-sqlite');
      return Promise.resolve(join(dir, 'hivewatch.db'));
    },
    stop() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

const ENGINES = [
  { name: 'PostgreSQL', make: postgresEngine },
  { name: 'SQLite', make: sqliteEngine },
];

describe.each(ENGINES)('a team database on $name: two CLI runs, one window', ({ make }) => {
  const engine = make();
  if (engine.skip) console.warn(`${engine.name} team journey skipped: ${engine.skip}`);

  let db: string;
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  /** A second tab, on the Errors screen from before the runs start. */
  let errorsTab: AppPage;
  const runs: CliRun[] = [];
  let flowsDir: string;

  beforeAll(async () => {
    if (engine.skip) return;
    db = await engine.database();
    server = await startServer({ db, args: ['--otel-port', 'off'] });
    flowsDir = tempDir('team-flows');
    writeFileSync(join(flowsDir, 'to-cancel.prose'), WAITS_IN_BACKOFF);
    writeFileSync(join(flowsDir, 'to-complete.prose'), WAITS_IN_BACKOFF);
    browser = await launchBrowser();
    app = await openApp(browser, server);
    errorsTab = await openApp(browser, server, { hash: '#/errors?range=all' });
  });

  afterAll(async () => {
    for (const run of runs) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await errorsTab?.close();
    await app?.close();
    await browser?.close();
    await server?.stop();
    await engine.stop();
    if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
  });

  it.skipIf(engine.skip !== null)(skipTitle("shows both runs live, cancels one from the window, and counts the journal's errors", engine.skip), async () => {
    const { page } = app;
    const navigations: string[] = [];
    const onNavigated = (frame: Frame): void => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    };
    page.on('framenavigated', onNavigated);
    const errorsTabNavigations: string[] = [];
    errorsTab.page.on('framenavigated', (frame) => {
      if (frame === errorsTab.page.mainFrame()) errorsTabNavigations.push(frame.url());
    });
    await untilErrorTotal(errorsTab.page, 0);

    const toCancel = await startCliRun(join(flowsDir, 'to-cancel.prose'), db);
    runs.push(toCancel);
    const toComplete = await startCliRun(join(flowsDir, 'to-complete.prose'), db);
    runs.push(toComplete);

    // Live: both rows appear in the open runs list, running and waiting out their backoff, with no reload.
    for (const run of [toCancel, toComplete]) {
      const row = runRow(page, run.runId);
      await row.and(page.locator('[data-status="running"]')).waitFor();
      await row.locator('.badge.retrying').waitFor();
    }
    await app.screenshot(`team-${engine.name.toLowerCase()}-runs-live`);
    // Live means without a reload: the page did not navigate while the rows came and changed.
    page.off('framenavigated', onNavigated);
    expect(navigations).toEqual([]);

    // The Errors tab, open since before the runs, counts their rate limits as they are journaled.
    await untilErrorTotal(errorsTab.page, 2);

    // One is retried now from its timeline (across processes) and completes in its CLI.
    await app.go(`#/runs/${toComplete.runId}`);
    await page.locator('.tl-row[data-task-id="1:0"]').getByRole('button', { name: 'Retry now' }).click();
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    const [completedCode] = await toComplete.exited;
    expect(completedCode, toComplete.stderr()).toBe(COMPLETED_EXIT);

    // The other is cancelled from its header's Cancel button; its CLI exits with "cancelled".
    await app.go(`#/runs/${toCancel.runId}`);
    await page.locator('.run-header').getByRole('button', { name: 'Cancel run' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor();
    const [cancelledCode] = await toCancel.exited;
    expect(cancelledCode, toCancel.stderr()).toBe(CANCELLED_EXIT);

    // Back in the list, each row shows how its run ended.
    await app.go('#/runs');
    await runRow(page, toCancel.runId).and(page.locator('[data-status="cancelled"]')).waitFor();
    await runRow(page, toComplete.runId).and(page.locator('[data-status="completed"]')).waitFor();
    await app.screenshot(`team-${engine.name.toLowerCase()}-runs-ended`);

    // The journal of every run, read through a store of its own on the same database.
    const store = await openStore({ path: db, readonly: true });
    const journal = new Map<string, HivewatchEvent[]>();
    try {
      const { runs: listed } = await store.listRuns({ limit: 100 });
      for (const row of listed) journal.set(row.id, await store.getEvents(row.id, 0, 10_000));
    } finally {
      await store.close();
    }
    expect([...journal.keys()].sort()).toEqual([toCancel.runId, toComplete.runId].sort());
    expect(journal.get(toCancel.runId)?.at(-1)?.type).toBe('runCancelled');
    expect(journal.get(toComplete.runId)?.at(-1)?.type).toBe('runCompleted');
    const journaledErrors = [...journal.values()].flat().filter((event) => event.type === 'errorOccurred').length;
    // Each run was rate limited once before it waited.
    console.info(`${engine.name}: ${journaledErrors} errorOccurred events in the journal`);
    expect(journaledErrors).toBeGreaterThanOrEqual(2);

    // A terminal on the same database counts the same (`hivewatch errors`).
    const cliOutput = execFileSync(process.execPath, [BIN, 'errors', '--db', db, '--by', 'category', '--json'], { cwd: ROOT, encoding: 'utf8' });
    const fromCli = JSON.parse(cliOutput) as ErrorCount[];
    expect(fromCli.reduce((sum, c) => sum + c.count, 0)).toBe(journaledErrors);

    // The API the Errors screen reads, and the screen itself, count the same.
    const byCategory = await server.api<ErrorCount[]>('GET', '/api/errors/counts?by=category');
    expect(byCategory.reduce((sum, c) => sum + c.count, 0)).toBe(journaledErrors);
    await app.go('#/errors?range=all');
    await untilErrorTotal(page, journaledErrors);
    await app.screenshot(`team-${engine.name.toLowerCase()}-errors`);
    await untilErrorTotal(errorsTab.page, journaledErrors);
    expect(errorsTabNavigations).toEqual([]);
    expect(errorsTab.problems).toEqual([]);

    expect(app.problems).toEqual([]);
  });
});
