import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import type { HivewatchEvent } from '../core/base/events.js';
import { groupAlive } from '../core/runtimes/process/process-group.js';
import { waiting } from '../core/testing/waiting.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { BACKOFF_AND_WORK } from './support/flows.js';
import { BIN, eventsOf, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey (rule 19): a `hivewatch run` in a terminal on the window's
 * database, one task waiting ten minutes in backoff and another with its agent at work, is
 * killed with `kill -9`. Without a reload or a click its row in Runs turns `interrupted` (the
 * window's `serve` watches the other hosts of its database), and the agent's process group it
 * left behind is ended.
 */
describe('a host killed with kill -9: its run turns interrupted in the window by itself', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let child: ChildProcess | null = null;
  let agentGroup: number | null = null;

  beforeAll(async () => {
    server = await startServer({ flows: { 'backoff-and-work.prose': BACKOFF_AND_WORK } });
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (agentGroup !== null && groupAlive(agentGroup)) process.kill(-agentGroup, 'SIGKILL');
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('a CLI run waiting in a 10-minute backoff, killed: interrupted in Runs with no reload and no click, its agent group ended', async () => {
    const { page } = app;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });

    const cli = spawn(process.execPath, [BIN, 'run', join(server.flowsDir, 'backoff-and-work.prose'), '--db', server.dbPath, '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = cli;
    const exited = once(cli, 'exit');
    const printed: HivewatchEvent[] = [];
    createInterface({ input: cli.stdout as NodeJS.ReadableStream }).on('line', (line) => printed.push(JSON.parse(line) as HivewatchEvent));
    const backoff = await vi.waitFor(() => printed.find((e) => e.type === 'retryScheduled') ?? waiting('the API task in its backoff'), { timeout: 20_000 });
    const agent = await vi.waitFor(
      () =>
        printed.find(
          (e): e is Extract<HivewatchEvent, { type: 'attemptProcess' }> => e.type === 'attemptProcess' && e.taskId !== (backoff as { taskId: string }).taskId,
        ) ?? waiting("the long job's agent process"),
      { timeout: 20_000 },
    );
    agentGroup = agent.pid;
    const runId = backoff.runId;

    const row = runRow(page, runId);
    await row.and(page.locator('[data-status="running"]')).waitFor();
    await row.locator('.badge.retrying').waitFor();
    await app.screenshot('dead-host-retrying');

    // Alive before the kill; after it, the window's host watch may end the group before this test
    // hears of the CLI's exit (a local dead host is seen within a second), so the proof that the
    // watch ended it is the journal's `outcome: 'ended'` below, not a second look here.
    expect(groupAlive(agent.pid)).toBe(true);
    cli.kill('SIGKILL');
    await exited;

    // No reload, no click: the window's serve notices the dead host and the journal tail brings the events.
    await row.and(page.locator('[data-status="interrupted"]')).waitFor();
    await expect(row.locator('.badge.retrying').count()).resolves.toBe(0);
    await app.screenshot('dead-host-interrupted');

    await expect.poll(() => !groupAlive(agent.pid), { message: "the agent's process group to be gone", timeout: 20_000 }).toBeTruthy();
    const events = await eventsOf(server, runId);
    expect(events.filter((e) => e.type === 'runInterrupted')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'runInterrupted',
      error: { code: 'SYSTEM_RUN_INTERRUPTED' },
      processes: [expect.objectContaining({ pgid: agent.pid, outcome: 'ended' })],
    });
    expect(navigations).toEqual([]);
    expect(app.problems).toEqual([]);
  });
});
