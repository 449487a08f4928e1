import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waiting } from '../core/testing/waiting.js';
import type { Browser, Page } from 'playwright-core';
import type { FailureCounts, Page as ApiPage, RunDetail, RunSummary } from '../core/service/api.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

const FAKE = 'agent assistant:\n  runtime: "fake"\n\n';

/**
 * The failure model's runs, made by the real product (subprocess agents, the virtual clock). In the
 * first two the newest error is not the one that ended the run: a retried timeout comes after
 * the crash that did.
 */
function flows(handshake: string): Record<string, string> {
  return {
    // A fail-fast parallel: Deploy (branch B, a real command) crashes with exit 2 once Smoke
    // tests (branch A) has timed out and started its second attempt (a file per attempt is the
    // handshake: no timing), which runs until the crash cancels it; the cancelled branch's
    // finally then times out once and recovers.
    'fail-fast.prose': `${FAKE}agent deployer:
  runtime: "command"
  command: "sh -c 'while [ ! -e ${handshake}/$HIVEWATCH_RUN_ID.smoke-2 ]; do sleep 0.02; done; echo deploy failed >&2; exit 2'"
  timeout: "60s"

agent smoker:
  runtime: "command"
  command: "sh -c 'touch ${handshake}/$HIVEWATCH_RUN_ID.smoke-$HIVEWATCH_ATTEMPT; [ $HIVEWATCH_ATTEMPT -lt 2 ] || sleep 60; echo timed out >&2; exit 124'"

parallel:
  session: deployer
    prompt: "Deploy"
  try:
    session: smoker (retry: 9, delay: "5s")
      prompt: "Smoke tests"
  finally:
    session: assistant (retry: 2, delay: "2s")
      prompt: "Collect smoke logs"
      simulate: "timeout, ok"
`,
    // 05-try-catch-finally's shape: caught, recorded, rethrown; the cleanup retries a timeout.
    'rethrow.prose': `${FAKE}try:
  session: assistant
    prompt: "Deploy to staging"
    simulate: "crash"
catch err:
  session: assistant
    prompt: "Record the failure: {err.code}"
  throw
finally:
  session: assistant (retry: 2, delay: "2s")
    prompt: "Remove the temporary deployment files"
    simulate: "timeout, ok"
`,
    'exhausted.prose': `${FAKE}session: assistant (retry: 3, delay: "1m")
  prompt: "Deploy"
  simulate: "exit:2"
`,
    'slow.prose': `${FAKE}session: assistant
  prompt: "Wait for the release window"
  simulate: "slow:60s"
`,
  };
}

/** Polls the server until the run's first attempt is running (vi.waitFor: it runs in a hook, where expect.poll cannot). */
async function untilAttemptRuns(server: ServerHandle, runId: string): Promise<void> {
  await vi.waitFor(
    async () => {
      const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
      if (detail.tasks[0]?.attempts[0]?.status !== 'running') waiting(`the first attempt of ${runId} running`);
    },
    { timeout: 45_000, interval: 100 },
  );
}

/** Every `<time datetime>` on the page, as ms since the epoch. */
function timesOnPage(page: Page): Promise<number[]> {
  return page.locator('time[datetime]').evaluateAll((els) => els.map((el) => Date.parse(el.getAttribute('datetime') ?? '')));
}

/**
 * Journey: the run header, the Runs list and its code filter, Compare,
 * the Errors screen and Flows › Recent runs all name the error that ended each run, never its
 * newest one; failures equal the failed runs; a completed run shows no red code; a virtual-clock
 * run's times of day are wall times, none in the future and no next attempt after the run ended.
 */
describe('the window tells why each run ended', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  const runs: Record<'failFast' | 'rethrow' | 'exhausted' | 'completed' | 'cancelled', string> = {
    failFast: '',
    rethrow: '',
    exhausted: '',
    completed: '',
    cancelled: '',
  };
  const details = new Map<string, RunDetail>();

  beforeAll(async () => {
    const dir = tempDir('failure-story');
    const handshake = join(dir, 'handshake');
    mkdirSync(handshake);
    server = await startServer({ dir, flows: flows(handshake) });
    runs.failFast = await server.startRun('user/fail-fast.prose', { virtualClock: true });
    runs.rethrow = await server.startRun('user/rethrow.prose', { virtualClock: true });
    runs.exhausted = await server.startRun('user/exhausted.prose', { virtualClock: true });
    runs.completed = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    runs.cancelled = await server.startRun('user/slow.prose', { virtualClock: true });
    for (const id of [runs.failFast, runs.rethrow, runs.exhausted]) details.set(id, await server.waitForRun(id, ['failed']));
    details.set(runs.completed, await server.waitForRun(runs.completed, ['completed']));
    // Cancelled while its one attempt runs (a minute of real work): during step 1.
    await untilAttemptRuns(server, runs.cancelled);
    await server.api('POST', `/api/runs/${runs.cancelled}/cancel`, { reason: 'stopped by the journey' });
    details.set(runs.cancelled, await server.waitForRun(runs.cancelled, ['cancelled']));
    browser = await launchBrowser();
    app = await openApp(browser, server);
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  const run = (id: string): RunSummary => (details.get(id) as RunDetail).run;

  it('the scene: the newest error of the fail-fast and the rethrow runs is not the one that ended them', () => {
    for (const id of [runs.failFast, runs.rethrow]) {
      expect(run(id).endingError?.code, id).toBe('RUNTIME_CRASHED');
      expect(run(id).lastError?.code, id).toBe('RUNTIME_TIMEOUT');
    }
    // Branch A was retrying timeouts when B crashed: its first attempt timed out (handled), its last was cancelled by B.
    const smoke = details.get(runs.failFast)?.tasks.find((t) => t.name === 'Smoke tests');
    expect(smoke?.attempts.length).toBeGreaterThanOrEqual(2);
    expect(smoke?.attempts[0]?.error?.code).toBe('RUNTIME_TIMEOUT');
    expect(smoke?.attempts.at(-1)?.cancelledBy).toBe('sibling');
    expect(run(runs.exhausted).endingError).toMatchObject({ code: 'POLICY_RETRY_LIMIT_EXCEEDED', rootCode: 'RUNTIME_CRASHED' });
    expect(run(runs.completed).lastError).not.toBeNull();
  });

  it('the header says "Failed because" the ending error, one click from its attempt, focused in the timeline', async () => {
    const { page } = app;
    await app.go(`#/runs/${runs.failFast}`);
    await page.locator('.run-header h1', { hasText: 'fail-fast' }).waitFor();
    await page.locator('.tl-row[data-task-id="1:0"]').waitFor();
    // Not the newest error (a retried timeout): the one that ended the run.
    expect(await page.locator('.run-header').textContent()).not.toContain('RUNTIME_TIMEOUT');
    const ending = page.getByTestId('run-ending');
    await ending.and(page.locator('[data-kind="failed"]')).waitFor();
    expect(await ending.getByTestId('ending-code').textContent()).toBe('RUNTIME_CRASHED');
    // The root cause leads, with how its process ended and its message; then where it happened.
    expect(await ending.getByTestId('ending-headline').textContent()).toMatch(/^Failed because RUNTIME_CRASHED exit 2 · \S/);
    expect(await ending.locator('.run-ending-where').textContent()).toBe('In Deploy attempt 1');
    await app.screenshot('failure-header-fail-fast');

    await ending.getByRole('button', { name: 'Deploy attempt 1' }).click();
    await page.waitForURL(/task=1%3A0&attempt=1/);
    const bar = page.locator('.tl-row[data-task-id="1:0"] .seg-attempt[data-attempt="1"]');
    await bar.and(page.locator('.picked')).waitFor();
    expect(await bar.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await bar.getAttribute('data-role')).toBe('ended');
    const picked = page.getByTestId('picked-attempt');
    expect(await picked.getByTestId('attempt-role').textContent()).toContain('ended the run');
    expect(await picked.getByTestId('envelope-role').textContent()).toBe('ended the run');
    expect(await picked.locator('.badge.recoverable').count()).toBe(0);
    await app.screenshot('failure-attempt-focused');

    // Smoke tests' last attempt was stopped by Deploy's failure: cancelled, not an error.
    await page.locator('.tl-row[data-task-id="1:1"] .seg-attempt').last().click();
    expect(await picked.getByTestId('attempt-stopped').textContent()).toMatch(/^Cancelled: a sibling branch failed/);
  });

  it('a retry limit leads with the error it gave up on and says how; a rethrown error says so; a cancelled run says what cancelled it', async () => {
    const { page } = app;
    await app.go(`#/runs/${runs.exhausted}`);
    const gaveUp = page.getByTestId('ending-gave-up');
    await gaveUp.waitFor();
    expect(await page.getByTestId('ending-code').textContent()).toBe('RUNTIME_CRASHED');
    expect(await gaveUp.textContent()).toBe(' — gave up after 4 attempts');
    expect(await page.getByTestId('ending-headline').textContent()).toMatch(/^Failed because RUNTIME_CRASHED exit 2 · .+ — gave up after 4 attempts$/);
    expect(await page.locator('.run-ending-where').textContent()).toBe('In Deploy attempt 4 · the run ended with POLICY_RETRY_LIMIT_EXCEEDED');
    // Every link of the chain is in the headline: no list repeats it.
    expect(await page.getByTestId('ending-chain').count()).toBe(0);
    await app.screenshot('failure-header-retry-limit');

    await app.go(`#/runs/${runs.rethrow}`);
    await page.getByTestId('ending-gave-up').filter({ hasText: 'caught and rethrown' }).waitFor();
    expect(await page.getByTestId('ending-code').textContent()).toBe('RUNTIME_CRASHED');

    await app.go(`#/runs/${runs.cancelled}`);
    const cancelled = page.locator('[data-testid="run-ending"][data-kind="cancelled"]');
    await cancelled.waitFor();
    expect(await cancelled.textContent()).toBe('Cancelled during step 1: stopped by the journey');
  });

  it('the Runs list shows each run’s ending error; code= finds runs by it (or its root cause), "any error" by any occurrence', async () => {
    const { page } = app;
    await app.go('#/runs');
    for (const id of [runs.failFast, runs.rethrow, runs.exhausted]) {
      await runRow(page, id).waitFor();
      // The root cause leads (POLICY_RETRY_LIMIT_EXCEEDED is how the exhausted run gave up on it).
      const root = run(id).endingError?.rootCode as string;
      expect(root).toBe('RUNTIME_CRASHED');
      expect(await runRow(page, id).textContent(), id).not.toContain('RUNTIME_TIMEOUT');
      expect(await runRow(page, id).getByTestId('run-ending-code').textContent(), id).toMatch(new RegExp(`^${root}`));
    }
    // A completed run shows no red code, however many errors it handled.
    expect(await runRow(page, runs.completed).locator('.error-text').count()).toBe(0);
    expect(await runRow(page, runs.completed).getByTestId('run-ending-code').count()).toBe(0);
    await app.screenshot('failure-runs-list');

    const shown = async (hash: string, expected: string[]): Promise<void> => {
      await app.go(hash);
      const want = [...expected].sort();
      await page
        .waitForFunction(
          (ids) =>
            JSON.stringify([...document.querySelectorAll('.runs-table [role="row"][data-run-id]')].map((r) => r.getAttribute('data-run-id')).sort()) === ids,
          JSON.stringify(want),
        )
        .catch(async () => {
          const seen = await page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')).sort());
          expect(seen, hash).toEqual(want);
        });
    };
    // The server's answer and the list agree, and neither counts the newest error.
    const byCode = await server.api<ApiPage<RunSummary>>('GET', '/api/runs?code=RUNTIME_CRASHED');
    expect(byCode.items.map((r) => r.id).sort()).toEqual([runs.failFast, runs.rethrow, runs.exhausted].sort());
    await shown('#/runs?code=RUNTIME_CRASHED', [runs.failFast, runs.rethrow, runs.exhausted]);
    await shown('#/runs?code=RUNTIME_TIMEOUT', []);
    await shown('#/runs?code=RUNTIME_TIMEOUT&match=any', [runs.failFast, runs.rethrow, runs.completed]);
    expect(await page.getByTestId('error-match').inputValue()).toBe('any');
  });

  it('Compare names each run’s ending error, not its newest one', async () => {
    const { page } = app;
    await app.go(`#/compare/${runs.rethrow}/${runs.failFast}`);
    const row = page.locator('[data-row="ending-error"]');
    await row.waitFor();
    expect(await row.locator('td[data-side="left"]').textContent()).toMatch(
      /^RUNTIME_CRASHED signal SIGSEGV in Deploy to staging attempt 1 · .+ — no retry was allowed; caught and rethrown$/,
    );
    expect(await row.locator('td[data-side="right"]').textContent()).toMatch(/^RUNTIME_CRASHED exit 2 in Deploy attempt 1 · /);
    expect(await page.locator('tbody[data-group="run"]').textContent()).not.toContain('RUNTIME_TIMEOUT');
  });

  it('the Errors screen counts failures (the failed runs) and occurrences by disposition; the ending occurrence says so', async () => {
    const { page } = app;
    await app.go('#/errors?range=all');
    const failures = page.getByTestId('errors-failures');
    await failures.waitFor();
    const counted = await server.api<FailureCounts>('GET', '/api/failures/counts?by=code');
    const failed = await server.api<{ byStatus: Record<string, number> }>('GET', '/api/runs/counts');
    expect(counted.total).toBe(3);
    expect(failed.byStatus.failed).toBe(3);
    expect(await failures.textContent()).toBe('3 failures');
    const occurrences = [...details.values()].reduce((n, d) => n + d.run.errorCount, 0);
    expect(await page.getByTestId('errors-occurrences').textContent()).toBe(`${occurrences} occurrences`);
    const handled = Number((await page.getByTestId('errors-handled').textContent())?.split(' ')[0]);
    const unhandled = Number((await page.getByTestId('errors-unhandled').textContent())?.split(' ')[0]);
    expect(handled + unhandled).toBe(occurrences);
    await app.screenshot('failure-errors-header');

    // One run's occurrences: the crash that ended it is unhandled and ending; the timeouts handled.
    await app.go(`#/errors?range=all&run=${runs.failFast}`);
    const rows = page.locator('.occurrence');
    await page.waitForFunction((n) => document.querySelectorAll('.occurrence').length === n, run(runs.failFast).errorCount);
    const flags = await rows.evaluateAll((els) =>
      els.map((el) => `${el.querySelector('.occ-code')?.textContent} ${[...el.querySelectorAll('.badge.disposition')].map((b) => b.textContent).join('+')}`),
    );
    expect(flags.filter((f) => f.startsWith('RUNTIME_CRASHED'))).toEqual(['RUNTIME_CRASHED unhandled+ending']);
    for (const f of flags.filter((x) => x.startsWith('RUNTIME_TIMEOUT'))) expect(f).toBe('RUNTIME_TIMEOUT handled');
  });

  it('Flows › Recent runs: the failed run’s ending code, nothing red for a completed one', async () => {
    const { page } = app;
    await app.go('#/flows/user/fail-fast.prose');
    const recent = page.getByTestId('recent-runs');
    await recent.locator(`[data-run-id="${runs.failFast}"]`).waitFor();
    expect(await recent.getByTestId('recent-ending-code').textContent()).toBe('RUNTIME_CRASHED');
    await app.go('#/flows/examples/02-rate-limited-api.prose');
    await recent.locator(`[data-run-id="${runs.completed}"]`).waitFor();
    expect(await recent.locator('.error-text').count()).toBe(0);
  });

  it('a virtual-clock run: every time of day is a wall time, none in the future, no next attempt after the run ended', async () => {
    const { page } = app;
    const detail = details.get(runs.exhausted) as RunDetail;
    // Its own clock ran six minutes of backoffs (1, 2 and 3 minutes) ahead of the wall. Minutes,
    // not seconds: on a loaded machine the run's four real attempts took most of a minute's lead.
    expect((detail.run.endedAt as number) - detail.run.startedAt).toBeGreaterThanOrEqual(6 * 60_000);
    expect((detail.run.endedAt as number) - (detail.run.endedWall as number)).toBeGreaterThanOrEqual(5 * 60_000);
    await app.go(`#/runs/${runs.exhausted}?task=1%3A0&attempt=4`);
    await page.locator('.picked-attempt [data-testid="error-envelope"] time').waitFor();
    const now = await page.evaluate(() => Date.now());
    const times = await timesOnPage(page);
    expect(times.length).toBeGreaterThanOrEqual(3);
    for (const t of times) expect(t).toBeLessThanOrEqual(now);
    for (const t of times) expect(t).toBeGreaterThanOrEqual(detail.run.startedWall);
    // "next attempt at …" in each backoff's explanation is when that attempt ran: within the run.
    const nextAt = await page
      .locator('.seg-backoff')
      .evaluateAll((els) =>
        els
          .map((el) => /next attempt at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(el.getAttribute('aria-label') ?? ''))
          .map((m) => (m ? Date.parse(`${m[1]}T${m[2]}`) : null)),
      );
    expect(nextAt).toHaveLength(3);
    for (const t of nextAt) {
      expect(t).not.toBeNull();
      expect(t as number).toBeLessThanOrEqual(detail.run.endedWall as number);
    }
    expect(await page.locator('.seg-backoff').first().getAttribute('title')).toContain('virtual');
    // The event log's times are when each event was journaled (its tooltip's first line).
    await page.getByTestId('event-log').locator('.event-time').last().waitFor();
    const logged = await page
      .getByTestId('event-log')
      .locator('.event-time')
      .evaluateAll((els) =>
        els
          .map((el) => /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(el.getAttribute('title') ?? ''))
          .map((m) => (m ? Date.parse(`${m[1]}T${m[2]}`) : NaN)),
      );
    expect(logged.length).toBeGreaterThanOrEqual(10);
    for (const t of logged) {
      expect(t).toBeGreaterThanOrEqual(detail.run.startedWall);
      expect(t).toBeLessThanOrEqual(detail.run.endedWall as number);
    }
    await app.screenshot('failure-virtual-times');
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.screenshot('failure-virtual-times-dark');
    expect(app.problems).toEqual([]);
  });
});
