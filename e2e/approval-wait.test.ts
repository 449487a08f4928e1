import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { RunDetail } from '../core/service/api.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: a Claude Code session blocked on a permission prompt for 12 minutes, sent to the
 * server's OTLP receiver as Claude Code 2.1.332 sends its logs (a prompt, the model's request,
 * then the PermissionRequest hook it runs as it shows the dialog). The Runs list filtered to
 * "waiting for approval" shows it with the time waited, the top bar counts it, the run header
 * says it; the person's refusal ends the wait live and the run keeps the 12 minutes waited.
 * A second session's time waited moves with the browser's injected clock, and the operator stops
 * watching it from its run page: the run ends cancelled, the prompt closed, the wait frozen; the
 * Flows screen says the flow's runs waiting now, then the time its ended run waited.
 * Screens at 1440 and 900 px in both themes, axe on each.
 */

const MINUTE = 60_000;
const SESSION = '5b1c9e0a-4d2f-4c8e-9a7b-1e2d3c4b5a69';

function logs(records: [event: string, at: number, attributes: Record<string, string>][], session = SESSION): Buffer {
  const logRecords = records.map(([event, at, attributes]) => ({
    timeUnixNano: `${at * 1_000_000}`,
    body: { stringValue: `claude_code.${event}` },
    attributes: Object.entries({ 'event.name': event, 'session.id': session, 'prompt.id': 'p-1', ...attributes }).map(([key, value]) => ({
      key,
      value: { stringValue: value },
    })),
  }));
  return Buffer.from(
    JSON.stringify({
      resourceLogs: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { stringValue: 'claude-code' } },
              { key: 'service.version', value: { stringValue: '2.1.332' } },
            ],
          },
          scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords }],
        },
      ],
    }),
  );
}

async function showAs(page: Page, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  // A reload on a machine the other suites load can take longer than one page wait.
  await page.locator('.topbar').waitFor({ timeout: 2 * PAGE_TIMEOUT_MS });
}

async function scan(page: Page, where: string, failures: string[]): Promise<void> {
  const serious = seriousOrCritical(await runAxe(page));
  if (serious.length > 0) failures.push(describeViolations(where, serious));
}

describe('an agent session waiting for approval, seen in the window', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let send: (body: Buffer) => Promise<void>;

  beforeAll(async () => {
    server = await startServer({ dir: tempDir('approval-wait'), flows: {}, args: ['--otel-port', '0'] });
    browser = await launchBrowser();
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1];
    send = async (body) => {
      const response = await fetch(`${endpoint}/v1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: new Uint8Array(body),
      });
      expect(response.status, await response.text()).toBe(200);
    };
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('filters to the waiting session with the time it waited, counts it in the top bar, says it in its header, and ends it live', async () => {
    const opened = Date.now() - 12 * MINUTE;
    await send(
      logs([
        ['user_prompt', opened - MINUTE, { prompt_length: '31' }],
        ['api_request', opened - 30_000, { model: 'claude-opus-5-5', duration_ms: '900', input_tokens: '12', output_tokens: '9' }],
        ['hook_execution_start', opened, { hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
      ]),
    );

    app = await openApp(browser, server, { hash: '#/runs?status=waiting-approval', bypassCSP: true });
    const { page } = app;
    const row = page.locator('[role="row"][data-run-id^="ext-claude-code-"]');
    const badge = row.getByTestId('approval-wait');
    await badge.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const runId = (await row.getAttribute('data-run-id')) as string;
    expect(await badge.textContent()).toMatch(/^waiting for approval of Bash · 1[23] min$/);
    expect(await badge.locator('code').textContent()).toBe('Bash');
    expect(await row.getByTestId('approval-wait-badge').textContent()).toMatch(/^approval · 1[23] min$/);
    const chip = page.getByRole('button', { name: /waiting for approval/ });
    expect(await chip.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => chip.locator('.chip-count').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('1');
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: PAGE_TIMEOUT_MS }).toContain('1 waiting for approval');

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await badge.waitFor();
        await scan(page, `runs, waiting-approval (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`approval-wait-runs-${colorScheme}-${width}`);
      }
    }

    await row.locator('.run-link').click();
    const notice = page.getByTestId('approval-wait-notice');
    await notice.waitFor();
    expect(await notice.getAttribute('aria-live')).toBe('polite');
    expect(await notice.textContent()).toMatch(
      /^Waiting for approval of Bash · 1[23] min\. The agent is blocked until a person answers its permission prompt in its own terminal or app\. Stop watching ends its run here; Hivewatch cannot stop the agent\.$/,
    );
    expect(await notice.locator('time').getAttribute('datetime')).toBe(new Date(opened).toISOString());
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await notice.waitFor();
        await scan(page, `run header, waiting for approval (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`approval-wait-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    // The person refuses: the notice goes, live, and the run keeps the time it waited.
    const decided = Date.now();
    await send(logs([['tool_decision', decided, { decision: 'reject', source: 'user_reject', tool_name: 'Bash', tool_use_id: 'toolu_01' }]]));
    await notice.waitFor({ state: 'detached', timeout: PAGE_TIMEOUT_MS });
    const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
    expect(detail.run.approval ?? null).toBeNull();
    expect(detail.run.approvalWaitMs).toBe(decided - opened);
    await expect.poll(() => page.getByTestId('connection').textContent(), { timeout: PAGE_TIMEOUT_MS }).not.toContain('waiting for approval');
    expect(app.problems).toEqual([]);
  });
  it("ticks the time waited on the browser's injected clock, and ends by stopping watching from the window: cancelled, the prompt closed, the wait frozen", async () => {
    const session = '0c7d2e4f-8a1b-4c3d-9e5f-6a7b8c9d0e1f';
    const opened = Date.now() - 25 * MINUTE;
    await send(
      logs(
        [
          ['user_prompt', opened - MINUTE, { prompt_length: '18' }],
          ['hook_execution_start', opened, { hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Write', num_hooks: '1' }],
        ],
        session,
      ),
    );
    await app?.close();
    app = await openApp(browser, server, { hash: '#/runs?status=waiting-approval', bypassCSP: true });
    const { page } = app;
    // The browser's clock from here on is the test's: the time waited moves only when the test moves it.
    await page.clock.install();
    await page.reload();
    const row = page.locator('[role="row"][data-run-id^="ext-claude-code-"]').filter({ has: page.locator('code', { hasText: 'Write' }) });
    const badge = row.getByTestId('approval-wait-badge');
    await badge.waitFor({ timeout: PAGE_TIMEOUT_MS });
    const runId = (await row.getAttribute('data-run-id')) as string;
    const minutes = async (): Promise<number> => Number(/approval · (\d+) min/.exec((await badge.textContent()) ?? '')?.[1]);
    const first = await minutes();
    expect([25, 26]).toContain(first);
    await page.clock.fastForward('05:00');
    await expect.poll(minutes, { timeout: PAGE_TIMEOUT_MS }).toBe(first + 5);
    await expect(row.getByRole('button', { name: `Stop watching session ${runId}` }).count()).resolves.toBe(1);

    // The Flows screen counts the session among the flow's runs waiting now.
    await app.go('#/flows');
    const sessions = page.locator('tr[data-flow-id="external:claude-code"]');
    // This session, and the first journey's if it stopped before its refusal was sent.
    const waitingNow = (await server.api<{ items: { flow: string }[] }>('GET', '/api/runs?status=waiting-approval&limit=100')).items.filter(
      (r) => r.flow === 'external:claude-code',
    ).length;
    expect(waitingNow).toBeGreaterThanOrEqual(1);
    await expect.poll(() => sessions.getByTestId('flow-waited').textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe(`${waitingNow} waiting now`);
    const waitingLink = sessions.getByRole('link', { name: `${waitingNow} waiting now` });
    expect(await waitingLink.getAttribute('href')).toBe('#/runs?flow=external%3Aclaude-code&status=waiting-approval');
    await waitingLink.click();
    await row.locator('.run-link').click();
    const notice = page.getByTestId('approval-wait-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /^Waiting for approval of Write · 3[01] min\. The agent is blocked until a person answers its permission prompt in its own terminal or app\. Stop watching ends its run here; Hivewatch cannot stop the agent\.$/,
    );
    await page.locator('.run-header').getByRole('button', { name: 'Stop watching' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop watching this session?' });
    await dialog.waitFor();
    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await scan(page, `stop watching a waiting session, confirmation (${colorScheme})`, failures);
      await app.screenshot(`approval-wait-stop-watching-${colorScheme}`);
    }
    expect(await dialog.textContent()).toContain('a permission prompt it waits on with it');
    const cancelledBefore = Date.now();
    await dialog.getByRole('button', { name: 'Stop watching' }).click();
    await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor({ timeout: PAGE_TIMEOUT_MS });
    await notice.waitFor({ state: 'detached', timeout: PAGE_TIMEOUT_MS });

    const detail = await server.waitForRun(runId, ['cancelled']);
    expect(detail.run.approval ?? null).toBeNull();
    const waited = detail.run.approvalWaitMs as number;
    expect(waited).toBeGreaterThanOrEqual(cancelledBefore - opened);
    expect(waited).toBeLessThanOrEqual(Date.now() - opened);
    expect(detail.run.endingError?.code).toBe('SYSTEM_CANCELLED');
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await page.locator('.run-header .badge.status[data-status="cancelled"]').waitFor();
        await scan(page, `run header, stopped watching (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`approval-wait-stopped-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await page.getByTestId('run-approval-waited').textContent()).toBe(`${Math.floor(waited / MINUTE)} min`);
    // The wait no longer grows: a later read of the run says what the cancel closed it with.
    const later = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
    expect(later.run.approvalWaitMs).toBe(waited);

    // The Flows screen: the flow's ended run waited that long, and none waits now.
    await app.go('#/flows');
    const stillWaiting = waitingNow - 1;
    await expect
      .poll(() => sessions.getByTestId('flow-waited').textContent(), { timeout: PAGE_TIMEOUT_MS })
      .toBe(`${Math.floor(waited / MINUTE)} minin 1 run${stillWaiting > 0 ? `${stillWaiting} waiting now` : ''}`);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await sessions.getByTestId('flow-waited').waitFor();
        await scan(page, `flows, time waited (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`approval-wait-flows-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    await app.go('#/runs?status=waiting-approval');
    await page.getByText('No runs match these filters').waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(app.problems).toEqual([]);
  });
});
