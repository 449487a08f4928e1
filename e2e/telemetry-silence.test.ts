import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { OtelIngester } from '../core/otel/receive/ingest.js';
import { claudeCodeLogs } from '../core/otel/testing.js';
import type { RunDetail } from '../core/service/api.js';
import { openStore } from '../core/store/index.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: a Claude Code session whose exporter stopped 4½ minutes ago (journaled before the server
 * starts, as its receiver would have taken it then; the server's quiet period is 30 min, so the
 * session is still open). The Runs row says "no telemetry for 4 min (expected every 5 s)", the run
 * header says it with when it was last heard; the session's next export clears it live. Screens
 * at 1440 and 900 px in both themes, axe on each.
 */

const SESSION = '0d9c6a52-7f0e-4b8c-a1d3-5e6f7a8b9c0d';

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

describe('an agent session whose telemetry stopped, seen in the window', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let runId: string;
  let lastSeenAt: number;

  beforeAll(async () => {
    const dir = tempDir('telemetry-silence');
    const db = join(dir, 'hivewatch.db');
    const store = await openStore({ path: db });
    lastSeenAt = Date.now() - 270_000;
    const ingester = new OtelIngester(store, { now: () => lastSeenAt, quietMs: 30 * 60_000 });
    const records = claudeCodeLogs(
      [
        ['user_prompt', { 'prompt.id': 'p-1', prompt_length: '31' }],
        ['api_request', { 'prompt.id': 'p-1', model: 'claude-opus-5-5', duration_ms: '900', input_tokens: '12', output_tokens: '9' }],
      ],
      SESSION,
      lastSeenAt - 3_000,
    );
    runId = (await ingester.ingest(records, null)).runIds[0]!;
    await store.close();
    server = await startServer({ dir, db, flows: {}, args: ['--otel-port', '0', '--otel-idle', '30m'] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('the Runs row and the run header say how long it has been silent; its next export clears it live', async () => {
    app = await openApp(browser, server, { hash: '#/runs', bypassCSP: true });
    const { page } = app;
    const row = page.locator(`[role="row"][data-run-id="${runId}"]`);
    const line = row.getByTestId('telemetry-silence');
    await line.waitFor({ timeout: PAGE_TIMEOUT_MS });
    expect(await line.textContent()).toMatch(/^no telemetry for \d+ min \(expected every 5 s\)$/);

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await line.waitFor();
        await scan(page, `runs, telemetry silent (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`telemetry-silence-runs-${colorScheme}-${width}`);
      }
    }

    await row.locator('.run-link').click();
    const notice = page.getByTestId('telemetry-silence-notice');
    await notice.waitFor();
    expect(await notice.getAttribute('aria-live')).toBe('polite');
    expect(await notice.textContent()).toMatch(
      /^No telemetry for \d+ min \(expected every 5 s\) from its claude-code exporter, last at .+\. Its exporter may have stopped/,
    );
    expect(await notice.locator('time').getAttribute('datetime')).toBe(new Date(lastSeenAt).toISOString());
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await notice.waitFor();
        await scan(page, `run header, telemetry silent (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`telemetry-silence-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    // The exporter sends again: the notice goes, live, and the API no longer reports a silence.
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1];
    const body = {
      resourceLogs: [
        {
          resource: {
            attributes: [
              { key: 'service.name', value: { stringValue: 'claude-code' } },
              { key: 'service.version', value: { stringValue: '2.1.332' } },
            ],
          },
          scopeLogs: [
            {
              scope: { name: 'com.anthropic.claude_code.events' },
              logRecords: [
                {
                  timeUnixNano: `${Date.now() * 1_000_000}`,
                  body: { stringValue: 'claude_code.user_prompt' },
                  attributes: [
                    ['event.name', 'user_prompt'],
                    ['session.id', SESSION],
                    ['prompt.id', 'p-2'],
                    ['prompt_length', '12'],
                  ].map(([key, value]) => ({ key, value: { stringValue: value } })),
                },
              ],
            },
          ],
        },
      ],
    };
    const response = await fetch(`${endpoint}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.text()).toBe(200);
    await notice.waitFor({ state: 'detached', timeout: PAGE_TIMEOUT_MS });
    const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
    expect(detail.run.telemetrySilence).toBeUndefined();
    expect(app.problems).toEqual([]);
  });
});
