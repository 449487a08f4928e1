import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** A session on the fake agent: rate limited once, then it answers. */
const EXPLAIN = `# Inspector journey: what an attempt was asked and what it answered.
agent assistant:
  runtime: "fake"

let topic = "queues"

session: assistant
  prompt: "Explain {topic} to a new operator"
  retry: 2
  simulate: "rate_limit, ok:Queues hold work until a worker is free."
`;

/** Journey: the attempt inspector, lineage links both ways, two runs compared. */
describe('attempt inspector, lineage and compare', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let first: string;
  let retry: string;
  let other: string;

  beforeAll(async () => {
    server = await startServer({ flows: { 'explain.prose': EXPLAIN } });
    first = await server.startRun('user/explain.prose', { virtualClock: true });
    await server.waitForRun(first, ['completed']);
    retry = (await server.api<{ runId: string }>('POST', `/api/runs/${encodeURIComponent(first)}/retry`, {})).runId;
    await server.waitForRun(retry, ['completed']);
    other = await server.startRun('examples/02-rate-limited-api.prose', { virtualClock: true });
    await server.waitForRun(other, ['completed']);
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: `#/runs/${first}` });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the rendered prompt, the output and the process of an attempt, and the failed one’s error and stderr', async () => {
    const { page } = app;
    const row = page.locator('.tl-row[data-task-id="1:0"]');
    await row.locator('.seg-attempt[data-attempt="2"]').click();
    const inspector = page.getByTestId('attempt-inspector');
    await inspector.waitFor();
    expect(await inspector.getByTestId('attempt-prompt').textContent()).toBe('Explain queues to a new operator');
    expect(await inspector.getByTestId('attempt-output').textContent()).toBe('Queues hold work until a worker is free.');
    expect(await inspector.getByTestId('attempt-exit').textContent()).toBe('exit 0');
    // A virtual-clock run: the attempt's duration is on the run's clock and says so.
    expect(await inspector.getByTestId('attempt-duration').textContent()).toMatch(/^virtual /);
    await app.screenshot('inspector-succeeded-attempt');

    await row.locator('.seg-attempt[data-attempt="1"]').click();
    await inspector.locator('.envelope-code', { hasText: 'RUNTIME_RATE_LIMIT' }).waitFor();
    expect(await inspector.getByTestId('attempt-prompt').textContent()).toBe('Explain queues to a new operator');
    expect(await inspector.getByTestId('attempt-exit').textContent()).toBe('exit 1');
    // A failed attempt's stderr opens by itself: the fake agent's rate-limit message is in it.
    const stderr = inspector.getByTestId('attempt-stderr');
    expect(await stderr.getAttribute('open')).not.toBeNull();
    expect(await stderr.locator('pre').textContent()).toMatch(/rate limit/i);
    expect(await inspector.getByTestId('attempt-output').count()).toBe(0);
    await app.screenshot('inspector-failed-attempt');
    expect(app.problems).toEqual([]);
  });

  it('opens the inspector from an error occurrence: its link lands on the attempt', async () => {
    const { page } = app;
    await app.go(`#/errors?run=${encodeURIComponent(retry)}&range=all`);
    // The title link opens its page, with its occurrences.
    await page.locator('.groups-table tbody tr a.issue-link', { has: page.locator('code', { hasText: 'RUNTIME_RATE_LIMIT' }) }).click();
    await page.waitForURL(/#\/issues\//);
    await page.locator('.issue-occurrences .occurrence .occurrence-line').first().click();
    await page.locator('.issue-occurrences').getByTestId('open-run').click();
    await page.waitForURL(new RegExp(`#/runs/${retry}\\?task=1%3A0&attempt=1$`));
    const inspector = page.getByTestId('attempt-inspector');
    await inspector.locator('.envelope-code', { hasText: 'RUNTIME_RATE_LIMIT' }).waitFor();
    expect(await inspector.getByTestId('attempt-prompt').textContent()).toBe('Explain queues to a new operator');
    await app.screenshot('inspector-from-error');
    expect(app.problems).toEqual([]);
  });

  it('links a run to its retry and back, and compares the two side by side', async () => {
    const { page } = app;
    await app.go(`#/runs/${first}`);
    const retries = page.getByTestId('run-retries');
    await retries.waitFor();
    expect(await retries.locator('a').allTextContents()).toEqual([retry]);
    await app.screenshot('lineage-retried-as');

    await retries.locator('a', { hasText: retry }).click();
    await page.locator('.run-facts dt', { hasText: 'Retry of' }).waitFor();
    expect(await page.locator('.run-facts a', { hasText: first }).getAttribute('href')).toBe(`#/runs/${first}`);

    // From the run header: compare with the run it retries (the flow's previous run is that same run: one link).
    expect(await page.getByTestId('compare-previous').count()).toBe(0);
    await app.screenshot('lineage-retry-of');
    await page.getByTestId('compare-retry-of').click();
    await page.waitForURL(new RegExp(`#/compare/${first}/${retry}$`));
    const table = page.getByTestId('compare-table');
    await table.waitFor();
    expect(await table.locator('thead a').allTextContents()).toEqual([first, retry]);
    const outputs = table.locator('tr[data-row="1:0/output"] td pre');
    expect(await outputs.allTextContents()).toEqual(['Queues hold work until a worker is free.', 'Queues hold work until a worker is free.']);
    expect(await table.locator('tr[data-row="1:0/errors"] td').allTextContents()).toEqual(['RUNTIME_RATE_LIMIT', 'RUNTIME_RATE_LIMIT']);
    expect(await table.locator('tr[data-row="1:0/attempts"] td').allTextContents()).toEqual(['2 of 3', '2 of 3']);
    await app.screenshot('compare-from-header');
    expect(app.problems).toEqual([]);
  });

  it('compares two runs ticked in the runs list', async () => {
    const { page } = app;
    await app.go('#/runs');
    await runRow(page, first).waitFor();
    await page.getByLabel(`Select run ${first}`).check();
    await page.getByLabel(`Select run ${retry}`).check();
    const compare = page.getByTestId('compare-selected');
    await compare.waitFor();
    await app.screenshot('runs-two-selected');
    await compare.click();
    // The older run goes on the left.
    await page.waitForURL(new RegExp(`#/compare/${first}/${retry}$`));
    await page.getByTestId('compare-table').waitFor();
    await app.screenshot('compare-from-runs-list');
    expect(app.problems).toEqual([]);
  });

  it('marks what differs between runs of two flows, and stays whole at 900 px', async () => {
    const { page } = app;
    await app.go(`#/compare/${first}/${other}`);
    const table = page.getByTestId('compare-table');
    await table.locator('thead a', { hasText: other }).waitFor();
    await page.locator('.compare .compare-note', { hasText: 'different flows' }).waitFor();
    await app.screenshot('compare-two-flows');
    // examples/02 has a second step (task 2:1) the explain flow never ran: "not run" on the left.
    expect(await table.locator('tr[data-row="2:1/status"] td[data-side="left"]').textContent()).toBe('not run');
    expect(await table.locator('tr[data-row="1:0/attempts"] td.differs').count()).toBe(2);

    await page.setViewportSize({ width: 900, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await app.screenshot('compare-900');
    await app.go(`#/runs/${first}?task=1%3A0&attempt=1`);
    await page.getByTestId('attempt-inspector').locator('.envelope-code').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await app.screenshot('inspector-900');
    expect(app.problems).toEqual([]);
  });
});
