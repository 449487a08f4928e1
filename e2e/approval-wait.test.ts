import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import * as journaled from '../core/base/approval-wait.js';
import type { RunDetail } from '../core/service/api.js';
import * as live from '../renderer/live/approval-summary.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: a Claude Code session blocked on a permission prompt for 12 minutes, sent to the
 * server's OTLP receiver as Claude Code 2.1.332 sends its logs (a prompt, the model's request,
 * then the PermissionRequest hook it runs as it shows the dialog). The Runs list filtered to
 * "waiting for approval" shows it with the time waited, the top bar counts it, the run header
 * says it; the person's refusal ends the wait live and the run keeps the 12 minutes waited.
 * Screens at 1440 and 900 px in both themes, axe on each.
 */

const MINUTE = 60_000;
const SESSION = '5b1c9e0a-4d2f-4c8e-9a7b-1e2d3c4b5a69';

function logs(records: [event: string, at: number, attributes: Record<string, string>][]): Buffer {
  const logRecords = records.map(([event, at, attributes]) => ({
    timeUnixNano: `${at * 1_000_000}`,
    body: { stringValue: `claude_code.${event}` },
    attributes: Object.entries({ 'event.name': event, 'session.id': SESSION, 'prompt.id': 'p-1', ...attributes }).map(([key, value]) => ({ key, value: { stringValue: value } })),
  }));
  return Buffer.from(JSON.stringify({
    resourceLogs: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }, { key: 'service.version', value: { stringValue: '2.1.332' } }] },
      scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords }],
    }],
  }));
}

async function showAs(page: Page, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  await page.locator('.topbar').waitFor();
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
      const response = await fetch(`${endpoint}/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: new Uint8Array(body) });
      expect(response.status, await response.text()).toBe(200);
    };
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('the window reads the event names the telemetry mapping journals', () => {
    expect([live.APPROVAL_REQUESTED, live.APPROVAL_ENDED]).toEqual([journaled.APPROVAL_REQUESTED, journaled.APPROVAL_ENDED]);
  });

  it('filters to the waiting session with the time it waited, counts it in the top bar, says it in its header, and ends it live', async () => {
    const opened = Date.now() - 12 * MINUTE;
    await send(logs([
      ['user_prompt', opened - MINUTE, { prompt_length: '31' }],
      ['api_request', opened - 30_000, { model: 'claude-opus-5-5', duration_ms: '900', input_tokens: '12', output_tokens: '9' }],
      ['hook_execution_start', opened, { hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
    ]));

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
    expect(await notice.textContent()).toMatch(/^Waiting for approval of Bash · 1[23] min\. The agent is blocked until a person answers its permission prompt in its own terminal or app\.$/);
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
});
