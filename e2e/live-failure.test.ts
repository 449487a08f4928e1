import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/service/api.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, SCREENSHOTS, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: a failure is on screen as it happens (docs/semantics.md "Event order within a step").
 * In a parallel, a fast session exits 3 while a slow one (branch 1, a real process blocked on a
 * FIFO this test writes to) still works: the fast attempt's failure is on the run's page at once.
 * In a fail-fast parallel its row says what it waits for ("exited 3 · waiting for branch 1 to
 * settle the step") until branch 1 ends; in a continue parallel nothing waits.
 */

const FAST = 'agent fast:\n  runtime: "fake"\n\n';

function flow(policy: 'fail-fast' | 'continue', script: string): string {
  return `${FAST}agent slow:
  command: "sh ${script}"

parallel${policy === 'continue' ? ' (on-fail: "continue")' : ''}:
  session: slow
    prompt: "Review the release notes"
  session: fast
    prompt: "Check the links"
    simulate: "exit:3"
`;
}

/** Lets the slow session end with `exitCode`: opening a FIFO for writing waits for its reader, the session's shell. */
async function release(fifo: string, exitCode: number): Promise<void> {
  const handle = await open(fifo, 'w');
  try {
    await handle.write(`${exitCode}\n`);
  } finally {
    await handle.close();
  }
}

/** Frees a session still blocked on its FIFO (a journey that failed half-way); nothing when none reads it. */
function unblock(fifo: string): void {
  try {
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, '1\n');
    closeSync(fd);
  } catch {
    // ENXIO: no reader, nothing is blocked.
  }
}

describe('a failure shown as it happens, the verdict when due', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let scripts: string;
  const fifos = { 'fail-fast': '', continue: '' };

  beforeAll(async () => {
    scripts = tempDir('live-failure');
    for (const policy of ['fail-fast', 'continue'] as const) {
      fifos[policy] = join(scripts, `${policy}.fifo`);
      execFileSync('mkfifo', [fifos[policy]]);
      writeFileSync(join(scripts, `${policy}.sh`), `read code < '${fifos[policy]}'\necho "notes reviewed"\nexit "$code"\n`);
    }
    server = await startServer({
      flows: { 'live-fail-fast.prose': flow('fail-fast', join(scripts, 'fail-fast.sh')), 'live-continue.prose': flow('continue', join(scripts, 'continue.sh')) },
    });
    browser = await launchBrowser();
    app = await openApp(browser, server, { bypassCSP: true });
  }, 60_000);

  afterAll(async () => {
    for (const fifo of Object.values(fifos)) if (fifo) unblock(fifo);
    await app?.close();
    await browser?.close();
    await server?.stop();
    if (scripts) rmSync(scripts, { recursive: true, force: true });
  });

  /** The run page's rows of the two tasks. */
  const rows = (page: Page) => ({ slow: page.locator('.tl-row[data-task-id="1:0"]'), fast: page.locator('.tl-row[data-task-id="1:1"]') });

  async function shootAndScan(page: Page, name: string): Promise<string[]> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const findings: string[] = [];
    for (const width of [1440, 900]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height: 900 });
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: join(SCREENSHOTS, `live-failure-${name}-${width}-${colorScheme}.png`) });
        const serious = seriousOrCritical(await runAxe(page));
        if (serious.length > 0) findings.push(describeViolations(`${name} at ${width} px, ${colorScheme}`, serious));
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.emulateMedia({ colorScheme: 'light' });
    return findings;
  }

  it('fail-fast: the fast attempt’s failure is on screen while branch 1 works, saying it waits for it; then it counts', async () => {
    const { page } = app;
    const runId = await server.startRun('user/live-fail-fast.prose');
    await app.go(`#/runs/${encodeURIComponent(runId)}`);
    const { slow, fast } = rows(page);

    const wait = fast.locator('.tl-judgment');
    await wait.waitFor();
    expect(await wait.textContent()).toBe('exited 3 · waiting for branch 1 to settle the step');
    expect(await wait.getAttribute('title')).toContain('“Review the release notes” (1:0)');
    await fast.locator('.seg-attempt.outcome-failed[data-attempt="1"]').waitFor();
    // Branch 1 is still at work (it waits on the FIFO), and the run with it.
    await slow.locator('.seg-attempt.outcome-running').waitFor();
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`)).run.status).toBe('running');
    expect(await shootAndScan(page, 'fail-fast-waiting')).toEqual([]);

    // Branch 1 succeeds: the failure counts, ends the run, and the wait is gone.
    await release(fifos['fail-fast'], 0);
    await page.locator('.run-header .badge.status[data-status="failed"]').waitFor();
    await slow.locator('.seg-attempt.outcome-succeeded').waitFor();
    await expect.poll(() => wait.count(), { message: 'the wait is gone once branch 1 ended', timeout: 15_000 }).toBe(0);
    const detail = await server.waitForRun(runId, ['failed']);
    expect(detail.run.endingError).toMatchObject({ code: 'RUNTIME_CRASHED', taskId: '1:1' });
    await app.screenshot('live-failure-fail-fast-counted');
    expect(app.problems).toEqual([]);
  });

  it('continue: the fast attempt’s failure and its error are on screen while branch 1 works, waiting for nothing', async () => {
    const { page } = app;
    const runId = await server.startRun('user/live-continue.prose');
    await app.go(`#/runs/${encodeURIComponent(runId)}`);
    const { slow, fast } = rows(page);

    await fast.locator('.seg-attempt.outcome-failed[data-attempt="1"]').waitFor();
    await slow.locator('.seg-attempt.outcome-running').waitFor();
    expect(await fast.locator('.tl-judgment').count()).toBe(0);
    // The error counted at once: the header's Errors links to it while the run still runs.
    const errors = page.locator(`.run-header a[href="#/errors?run=${encodeURIComponent(runId)}&range=all"]`);
    await errors.waitFor();
    expect(await errors.textContent()).toBe('1');
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`)).run.status).toBe('running');
    expect(await shootAndScan(page, 'continue-running')).toEqual([]);

    await release(fifos.continue, 0);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    expect(app.problems).toEqual([]);
  });
});
