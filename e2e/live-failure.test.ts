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
 * In a parallel, branch 1 (slow) and branch 2 (fast) are real processes, each blocked on a FIFO
 * this test writes its exit code to. With the run's page open and both running, branch 2 exits 3:
 * its failure appears live while branch 1 still works. In a fail-fast parallel its row says what
 * it waits for ("exited 3 · waiting for branch 1 to settle the step") until branch 1 ends; in a
 * continue parallel nothing waits and its error counts at once.
 */

type Policy = 'fail-fast' | 'continue';

function flow(policy: Policy, scripts: string): string {
  return `agent slow:
  command: "sh ${join(scripts, `${policy}-slow.sh`)}"
agent fast:
  command: "sh ${join(scripts, `${policy}-fast.sh`)}"

parallel${policy === 'continue' ? ' (on-fail: "continue")' : ''}:
  session: slow
    prompt: "Review the release notes"
  session: fast
    prompt: "Check the links"
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
  const fifos: Record<string, string> = {};

  beforeAll(async () => {
    scripts = tempDir('live-failure');
    for (const policy of ['fail-fast', 'continue'] as const) {
      for (const branch of ['slow', 'fast'] as const) {
        const fifo = join(scripts, `${policy}-${branch}.fifo`);
        fifos[`${policy}-${branch}`] = fifo;
        execFileSync('mkfifo', [fifo]);
        const says = branch === 'slow' ? 'echo "notes reviewed"' : 'echo "3 links are broken" >&2';
        writeFileSync(join(scripts, `${policy}-${branch}.sh`), `read code < '${fifo}'\n${says}\nexit "$code"\n`);
      }
    }
    server = await startServer({ flows: { 'live-fail-fast.prose': flow('fail-fast', scripts), 'live-continue.prose': flow('continue', scripts) } });
    browser = await launchBrowser();
    app = await openApp(browser, server, { bypassCSP: true });
  }, 60_000);

  afterAll(async () => {
    for (const fifo of Object.values(fifos)) unblock(fifo);
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

  /** Opens the run's page once both branches are at work; the page is live from then on. */
  async function openRunning(page: Page, policy: Policy): Promise<string> {
    const runId = await server.startRun(`user/live-${policy}.prose`);
    await app.go(`#/runs/${encodeURIComponent(runId)}`);
    const { slow, fast } = rows(page);
    await slow.locator('.seg-attempt.outcome-running').waitFor();
    await fast.locator('.seg-attempt.outcome-running').waitFor();
    return runId;
  }

  it('fail-fast: branch 2’s failure appears while branch 1 works, saying it waits for it; then it counts', async () => {
    const { page } = app;
    const runId = await openRunning(page, 'fail-fast');
    const { slow, fast } = rows(page);

    await release(fifos['fail-fast-fast'] as string, 3);
    await fast.locator('.seg-attempt.outcome-failed[data-attempt="1"]').waitFor();
    const wait = fast.locator('.tl-judgment');
    await wait.waitFor();
    expect(await wait.textContent()).toBe('exited 3 · waiting for branch 1 to settle the step');
    expect(await wait.getAttribute('title')).toContain('“Review the release notes” (1:0)');
    // Branch 1 is still at work (it waits on its FIFO), and the run with it.
    await slow.locator('.seg-attempt.outcome-running').waitFor();
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`)).run.status).toBe('running');
    expect(await shootAndScan(page, 'fail-fast-waiting')).toEqual([]);

    // Branch 1 succeeds: the failure counts, ends the run, and the wait is gone.
    await release(fifos['fail-fast-slow'] as string, 0);
    await page.locator('.run-header .badge.status[data-status="failed"]').waitFor();
    await slow.locator('.seg-attempt.outcome-succeeded').waitFor();
    await expect.poll(() => wait.count(), { message: 'the wait is gone once branch 1 ended', timeout: 15_000 }).toBe(0);
    const detail = await server.waitForRun(runId, ['failed']);
    expect(detail.run.endingError).toMatchObject({ code: 'RUNTIME_CRASHED', taskId: '1:1' });
    await app.screenshot('live-failure-fail-fast-counted');
    expect(app.problems).toEqual([]);
  });

  it('continue: branch 2’s failure and its error appear while branch 1 works, waiting for nothing', async () => {
    const { page } = app;
    const runId = await openRunning(page, 'continue');
    const { slow, fast } = rows(page);

    await release(fifos['continue-fast'] as string, 3);
    await fast.locator('.seg-attempt.outcome-failed[data-attempt="1"]').waitFor();
    await slow.locator('.seg-attempt.outcome-running').waitFor();
    expect(await fast.locator('.tl-judgment').count()).toBe(0);
    // The error counted at once: the header's Errors links to it while the run still runs.
    const errors = page.locator(`.run-header a[href="#/errors?run=${encodeURIComponent(runId)}&range=all"]`);
    await errors.waitFor();
    expect(await errors.textContent()).toBe('1');
    expect((await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`)).run.status).toBe('running');
    expect(await shootAndScan(page, 'continue-running')).toEqual([]);

    await release(fifos['continue-slow'] as string, 0);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    expect(app.problems).toEqual([]);
  });
});
