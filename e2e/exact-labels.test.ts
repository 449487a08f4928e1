import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunDetail } from '../core/service/api.js';
import { bulkSeed } from '../bench/ui/bulk-seed.js';
import { describeViolations, runAxe, seriousOrOutsideLandmarks } from './support/axe.js';
import { launchBrowser, openApp, runRow, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journeys: every label of a run says what is true. A triage flow whose prompt is a template
 * ("Triage the incidents: {ctx}") times out three times and gives up; a flow with a catch block
 * takes one step more when it runs; a bulk import's runs share the front of their ids. Each label
 * is read where the operator reads it — the run header, the Runs list, the timeline, Compare,
 * the Errors issues (an ignored one says until when), the CLI — in both themes at 1440 and 900 px, with axe on each.
 */

const FAKE = 'agent assistant:\n  runtime: "fake"\n\n';
const FLOWS = {
  'triage.prose': `${FAKE}let ctx = session: assistant
  prompt: "Collect the open incidents"
  simulate: "ok:disk full on db-2"

session: assistant
  prompt: "Triage the incidents: {ctx}"
  retry: 2
  backoff: "fixed"
  delay: "1s"
  simulate: "timeout, timeout, timeout"
`,
  'catching.prose': `${FAKE}try:
  session: assistant
    prompt: "Deploy"
    simulate: "crash"
catch:
  session: assistant
    prompt: "Roll back"
session: assistant
  prompt: "Tell the channel"
`,
};

const TEMPLATE = 'Triage the incidents: {ctx}';
const RENDERED = 'Triage the incidents: disk full on db-2';

/** Rows whose content reaches outside the row: text printed over the next one. */
function overflowingRows(page: Page): Promise<string[]> {
  return page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) =>
    rows.flatMap((row) => {
      const box = row.getBoundingClientRect();
      const out = [...row.querySelectorAll('*')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.height > 0 && (r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5);
      });
      return out.length > 0 ? [`${row.getAttribute('data-run-id')}: ${out.map((el) => (el.textContent ?? '').trim().slice(0, 40)).join(' | ')}`] : [];
    }),
  );
}

describe('labels that say what is true', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let triage = '';
  let catching = '';
  let detail: RunDetail;

  beforeAll(async () => {
    const dir = tempDir('labels');
    // Forty runs of a bulk import, alike in the front of their ids (run_bulk00000…).
    bulkSeed(`${dir}/hivewatch.db`, { runs: 40, errors: 10, now: Date.now() - 60_000 });
    server = await startServer({ dir, flows: FLOWS });
    triage = await server.startRun('user/triage.prose', { virtualClock: true });
    catching = await server.startRun('user/catching.prose', { virtualClock: true });
    detail = await server.waitForRun(triage, ['failed']);
    await server.waitForRun(catching, ['completed']);
    browser = await launchBrowser();
    app = await openApp(browser, server, { bypassCSP: true });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  async function look(name: string, ready: () => Promise<void>): Promise<void> {
    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await app.page.emulateMedia({ colorScheme });
        await app.page.setViewportSize({ width, height: 900 });
        await ready();
        const found = seriousOrOutsideLandmarks(await runAxe(app.page));
        if (found.length > 0) failures.push(describeViolations(`${name} (${colorScheme}, ${width} px)`, found));
        await app.screenshot(`labels-${name}-${colorScheme}-${width}`);
      }
    }
    await app.page.emulateMedia({ colorScheme: 'light' });
    await app.page.setViewportSize({ width: 1440, height: 900 });
    expect(failures, failures.join('\n\n')).toEqual([]);
  }

  it('"Failed because" leads with the root cause and says how the run gave up, in the header, the list and the CLI', async () => {
    const { page } = app;
    await app.go(`#/runs/${triage}`);
    const ending = page.getByTestId('run-ending');
    await ending.waitFor();
    await look('failed-because', () => ending.waitFor());
    expect(await ending.getByTestId('ending-headline').textContent()).toBe(
      'Failed because RUNTIME_TIMEOUT exit 124 · runtime fake reported a timeout (exit 124) — gave up after 3 attempts',
    );
    expect(await ending.locator('.run-ending-where').textContent()).toBe(`In ${RENDERED} attempt 3 · the run ended with POLICY_RETRY_LIMIT_EXCEEDED`);

    await app.go('#/runs');
    const code = runRow(page, triage).getByTestId('run-ending-code');
    await code.waitFor();
    expect(await code.textContent()).toBe('RUNTIME_TIMEOUT · gave up after 3 attempts');
    expect(await code.getAttribute('title')).toBe(
      'RUNTIME_TIMEOUT in task 2:1 attempt 3 · runtime fake reported a timeout (exit 124) — gave up after 3 attempts (the run ended with POLICY_RETRY_LIMIT_EXCEEDED)',
    );

    const cli = execFileSync(process.execPath, [BIN, 'runs', '--db', server.dbPath, '--limit', '5'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, HIVEWATCH_DB: '' },
    });
    const line = cli.split('\n').find((l) => l.startsWith(triage));
    expect(line).toMatch(
      / failed +triage +\S+ \S+ +2 of 2 +4 attempts +4 errors +RUNTIME_TIMEOUT in task 2:1 attempt 3 · runtime fake reported a timeout \(exit 124\) — gave up after 3 attempts$/,
    );
  });

  it('names tasks by the prompt they ran, the template on hover: header, timeline, Compare, Errors', async () => {
    const { page } = app;
    expect(detail.tasks.map((t) => [t.name, t.template])).toEqual([
      ['Collect the open incidents', undefined],
      [RENDERED, TEMPLATE],
    ]);
    await app.go(`#/runs/${triage}`);
    const attempt = page.getByTestId('run-ending').getByRole('button', { name: `${RENDERED} attempt 3` });
    await attempt.waitFor();
    expect(await attempt.getAttribute('title')).toBe(`prompt as written: ${TEMPLATE}\nshow this attempt in the retry timeline`);
    const name = page.locator('.tl-row[data-task-id="2:1"] .tl-name');
    expect(await name.textContent()).toBe(RENDERED);
    expect(await name.getAttribute('title')).toBe(`${RENDERED}\nprompt as written: ${TEMPLATE}\nagent assistant · task 2:1`);
    expect(await page.locator('.run-detail').textContent()).not.toContain('{ctx}');

    // Compare it with a retry of it: the task is named by what each ran.
    const retried = await server.api<{ runId: string }>('POST', `/api/runs/${triage}/retry`, {});
    await server.waitForRun(retried.runId, ['failed']);
    await app.go(`#/compare/${triage}/${retried.runId}`);
    const group = page.locator('tbody[data-group="task-2:1"] th[scope="colgroup"]');
    await group.waitFor();
    expect(await group.textContent()).toBe(`${RENDERED} (task 2:1)`);
    expect(await group.getAttribute('title')).toBe(`prompt as written: ${TEMPLATE}`);
    await look('compare', () => group.waitFor());

    await app.go('#/errors?range=24h&code=RUNTIME_TIMEOUT');
    const culprit = page.locator('.issues-table .issue-culprit', { hasText: RENDERED }).first();
    await culprit.waitFor();
    expect(await culprit.textContent()).toBe(`triage › ${RENDERED}`);
    expect(await culprit.getAttribute('title')).toBe(`prompt as written: ${TEMPLATE}`);
  });

  it('an ignored issue says until when, in the Errors issues and the CLI', async () => {
    const { page } = app;
    const row = () => page.locator('.issues-table tbody tr', { has: page.locator('.issue-culprit', { hasText: RENDERED }) });
    await app.go('#/errors?range=24h&code=RUNTIME_TIMEOUT');
    await row().waitFor();
    const id = (await row().getAttribute('data-fingerprint')) as string;
    const before = Date.now();
    await row().getByLabel('Ignore RUNTIME_TIMEOUT').selectOption({ label: 'Ignore for 24 hours' });
    await row().waitFor({ state: 'detached' });

    await app.go('#/errors?range=24h&code=RUNTIME_TIMEOUT&istatus=ignored');
    const chip = row().getByTestId('issue-status');
    await chip.waitFor();
    await look('ignored', () => chip.waitFor());
    // The same time tomorrow: said with its date, the exact time on hover.
    const title = (await chip.getAttribute('title')) as string;
    const exact = /^ignored until (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):\d{2}\.\d{3}, then unresolved again: changed by window$/.exec(title);
    expect(exact, title).not.toBeNull();
    const [, y, mo, d, h, mi] = (exact ?? []).map(Number);
    const end = new Date(y ?? 0, (mo ?? 1) - 1, d, h, mi).getTime();
    expect(end).toBeGreaterThanOrEqual(Math.floor((before + 86_400_000) / 60_000) * 60_000);
    expect(end).toBeLessThanOrEqual(Date.now() + 86_400_000);
    const month = new Date(end).toLocaleDateString('en-GB', { month: 'short' });
    expect(await chip.textContent()).toBe(`ignored until ${d} ${month} ${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}`);
    const cliLine = () =>
      execFileSync(process.execPath, [BIN, 'issues', '--db', server.dbPath, '--status', 'ignored'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, HIVEWATCH_DB: '' },
      })
        .split('\n')
        .find((l) => l.startsWith(id));
    expect(cliLine()).toMatch(/^\S+ +ignored \(until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\) +\d/);

    // Reopened and ignored until ten more: the count is the end.
    await row().getByRole('button', { name: 'Reopen' }).click();
    await row().waitFor({ state: 'detached' });
    await app.go('#/errors?range=24h&code=RUNTIME_TIMEOUT');
    await row().getByLabel('Ignore RUNTIME_TIMEOUT').selectOption({ label: 'Ignore until 10 more' });
    await row().waitFor({ state: 'detached' });
    await app.go('#/errors?range=24h&code=RUNTIME_TIMEOUT&istatus=ignored');
    await chip.waitFor();
    expect(await chip.textContent()).toBe('ignored until 10 more occurrences');
    expect(cliLine()).toMatch(/^\S+ +ignored \(until 10 more occurrences\) +\d/);
  });

  it('STEP is the step reached of the steps the flow takes, never of max-steps', async () => {
    const { page } = app;
    await app.go('#/runs');
    const stepOf = (id: string) => runRow(page, id).locator('.cell-num.col-secondary').first();
    await stepOf(triage).waitFor();
    expect(await stepOf(triage).textContent()).toBe('2 of 2');
    expect(await stepOf(triage).getAttribute('title')).toBe('step 2 of the 2 its flow takes');
    // Its catch ran: one step more than a run where nothing fails.
    expect(await stepOf(catching).textContent()).toBe('3 of 2–3');
    expect(await stepOf(catching).getAttribute('title')).toBe('step 3: its flow takes 2 steps when nothing fails, up to 3 when its catch blocks run');
    expect(await page.locator('.grid-header [role="columnheader"]', { hasText: 'Step' }).getAttribute('title')).toBe(
      'the step reached, of the steps its flow takes',
    );
    expect(await page.locator('.runs-table').textContent()).not.toContain('/ 100');
    await app.go(`#/runs/${catching}`);
    const fact = page.getByTestId('run-step');
    await fact.waitFor();
    expect(await fact.textContent()).toBe('3 of 2–3');
  });

  it('run ids read as their distinct tails, the full id on hover and in a copy', async () => {
    const { page } = app;
    await app.go('#/runs');
    await page.locator('.runs-table [role="row"][data-run-id^="run_bulk"]').first().waitFor();
    const ids = await page
      .locator('.runs-table [role="row"][data-run-id] .cell-id')
      .evaluateAll((cells) =>
        cells.map((c) => ({ shown: c.textContent ?? '', full: c.getAttribute('title') ?? '', row: c.closest('[data-run-id]')?.getAttribute('data-run-id') })),
      );
    expect(ids.length).toBeGreaterThan(10);
    for (const { shown, full, row } of ids) {
      expect(full).toBe(row);
      expect(shown.startsWith('…')).toBe(true);
      expect(full.endsWith(shown.slice(1))).toBe(true);
    }
    expect(new Set(ids.map((i) => i.shown)).size).toBe(ids.length);
    expect(ids.find((i) => i.full === 'run_bulk0000039')?.shown).toBe('…000039');

    // Selecting the shown tail and copying it copies the whole id.
    const copied = await page.evaluate(() => {
      const cell = document.querySelector('.runs-table [role="row"][data-run-id="run_bulk0000039"] .cell-id');
      if (!cell) return null;
      let data: string | null = null;
      document.addEventListener('copy', (e) => (data = e.clipboardData?.getData('text/plain') ?? null), { once: true });
      const range = document.createRange();
      range.selectNodeContents(cell);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      document.execCommand('copy');
      return data;
    });
    expect(copied).toBe('run_bulk0000039');
  });

  it('rows keep to their two lines at 1440 and 900 px, and a bulk retry’s notice links to the new runs', async () => {
    const { page } = app;
    await app.go('#/runs?status=failed');
    await runRow(page, triage).waitFor();
    await look('runs', async () => {
      await runRow(page, triage).waitFor();
      expect(await overflowingRows(page)).toEqual([]);
      // The flow's name keeps room, whatever the width.
      const names = await page
        .locator('.runs-table [role="row"][data-run-id] .run-link')
        .evaluateAll((links) => links.map((a) => a.getBoundingClientRect().width));
      expect(names.filter((w) => w < 40)).toEqual([]);
    });

    await runRow(page, triage).locator('input[type="checkbox"]').check();
    await page.getByTestId('bulk-bar').getByRole('button', { name: 'Retry 1 run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Retry 1 run' }).click();
    const toast = page.locator('.toast', { hasText: 'Started a new run:' });
    await toast.waitFor();
    const link = toast.getByRole('link');
    const newId = (await link.getAttribute('title')) as string;
    expect(newId).toMatch(/^run_/);
    expect(await link.textContent()).toBe(`…${newId.slice(-8)}`);
    await link.click();
    await page.waitForURL(new RegExp(`#/runs/${newId}$`));
    expect(app.problems).toEqual([]);
  });
});
