import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openStore } from '../core/store/index.js';
import { JournalBuilder } from '../core/store/testing/journal-builder.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: an attempt asked with a JSON prompt that answered JSON. The inspector lays
 * both out for reading (values exactly as journaled: the 20-digit id is not rounded) and copies
 * each as journaled.
 */

const RUN = 'run_json_answer';
const PROMPT = '{"task":"classify","labels":["bug","feature"],"limit":3}';
const OUTPUT = '{"label":"bug","confidence":0.93,"ticket":12345678901234567890,"notes":[]}';

async function seedJsonRun(dbPath: string): Promise<void> {
  const b = new JournalBuilder(RUN, { start: Date.now() - 600_000, flowName: 'classify' }).start();
  const ref = { step: 1, ordinal: 0, taskId: '1:0' };
  b.push({ type: 'stepStarted', step: 1, frontier: [{ ordinal: 0, taskId: '1:0', name: 'classify' }] });
  b.push({ type: 'taskStarted', ...ref, name: 'classify', agent: 'fake', maxAttempts: 1 });
  b.push({ type: 'attemptStarted', ...ref, attempt: 1, prompt: PROMPT });
  b.push({
    type: 'attemptSucceeded',
    ...ref,
    attempt: 1,
    durationMs: 40,
    trace: { output: OUTPUT, exitCode: 0, signal: null, stdoutTail: '', stderrTail: '' },
  });
  b.push({ type: 'taskSucceeded', ...ref, attempts: 1, output: OUTPUT });
  b.push({ type: 'stepFinished', step: 1 });
  b.complete();
  const store = await openStore({ path: dbPath });
  try {
    await store.appendEvents(b.events);
  } finally {
    await store.close();
  }
}

describe('JSON prompts and outputs in the attempt inspector', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    const dir = tempDir('json-inspector');
    await seedJsonRun(`${dir}/hivewatch.db`);
    server = await startServer({ dir });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: `#/runs/${RUN}?task=1:0&attempt=1`, bypassCSP: true });
    await app.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('lays out JSON for reading and copies it as journaled', async () => {
    const { page } = app;
    const prompt = page.getByTestId('attempt-prompt');
    const output = page.getByTestId('attempt-output');
    await output.waitFor();
    expect(await prompt.getAttribute('data-json')).toBe('true');
    expect(await prompt.textContent()).toBe('{\n  "task": "classify",\n  "labels": [\n    "bug",\n    "feature"\n  ],\n  "limit": 3\n}');
    expect(await output.textContent()).toContain('\n  "ticket": 12345678901234567890,\n');
    expect(await output.textContent()).toContain('\n  "notes": []\n');

    const copy = page.locator('.inspector-answered').getByTestId('copy-button');
    await copy.click();
    await expect.poll(() => copy.textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(OUTPUT);

    for (const [width, scheme] of [
      [1400, 'light'],
      [1400, 'dark'],
      [900, 'light'],
      [900, 'dark'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.locator('.inspector-asked').scrollIntoViewIfNeeded();
      await app.screenshot(`inspector-json-${width}-${scheme}`);
      const bad = seriousOrCritical(await runAxe(page));
      expect(bad, describeViolations(`inspector with JSON (${width} px, ${scheme})`, bad)).toEqual([]);
    }
    expect(app.problems).toEqual([]);
  });
});
