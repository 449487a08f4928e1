import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { HivewatchEvent } from '../core/base/events.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { SLOW_PARALLEL } from './support/flows.js';
import { BIN, eventsOf, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: a `hivewatch run` in a terminal, on the window's database, appears live in
 * the window with no reload, is cancelled from the window's cancel button, and the CLI exits 3
 * with `runCancelled` the last event of its journal.
 */
describe("a CLI run on the app's database, live and cancellable from the window", () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    server = await startServer({ flows: { 'slow-parallel.prose': SLOW_PARALLEL } });
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('appears live, is cancelled from the window, and the CLI exits 3 with runCancelled last', async () => {
    const { page } = app;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });

    const cli = spawn(process.execPath, [BIN, 'run', join(server.flowsDir, 'slow-parallel.prose'), '--db', server.dbPath, '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = cli;
    let stderr = '';
    cli.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(cli, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const lines = createInterface({ input: cli.stdout as NodeJS.ReadableStream });
    const firstLine = (await once(lines, 'line')) as [string];
    const runId = (JSON.parse(firstLine[0]) as HivewatchEvent).runId;

    // Live: the row appears and turns running without a reload.
    const row = runRow(page, runId);
    await row.and(page.locator('[data-status="running"]')).waitFor();
    await app.screenshot('cross-process-cli-run-live');

    await row.getByRole('button', { name: `Cancel run ${runId}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this run?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel run' }).click();
    await row.and(page.locator('[data-status="cancelled"]')).waitFor();
    await app.screenshot('cross-process-cli-run-cancelled');

    const [code] = await exited;
    expect(code, stderr).toBe(3);
    const events = await eventsOf(server, runId);
    expect(events.at(-1)?.type).toBe('runCancelled');
    const requested = events.filter((e) => e.type === 'cancelRequested');
    expect(requested).toHaveLength(1);
    expect(requested[0]).toMatchObject({ alreadyCancelling: false });
    expect(navigations).toEqual([]);
    expect(app.problems).toEqual([]);
  });
});
