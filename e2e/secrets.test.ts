import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/service/api.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { editorText, pasteOver } from './support/editor.js';
import { startServer, type ServerHandle } from './support/server.js';

/** The flow of core/cli/secrets.test.ts: the secret goes to stdout, stderr, an output passed on, a caught and a thrown error. */
const TOKEN = 'tok-PLANTED-5e1f9';
const SHORT = '~q~';
const LEAKY = [
  'agent talker:',
  `  command: "sh -c 'echo said $API_TOKEN $DB_PASSWORD'"`,
  `  env: ["API_TOKEN=${TOKEN}", "DB_PASSWORD=${SHORT}", "MODE=timeout"]`,
  'agent leaky:',
  `  command: "sh -c 'echo out=$API_TOKEN; echo err=$API_TOKEN pw=$DB_PASSWORD >&2; exit 3'"`,
  `  env: ["API_TOKEN=${TOKEN}", "DB_PASSWORD=${SHORT}", "MODE=timeout"]`,
  'let said = session: talker',
  '  prompt: "speak"',
  'try:',
  '  session: leaky',
  '    prompt: "use {said}"',
  '    retry: 1',
  'catch err:',
  '  session: talker',
  '    prompt: "report {err.message}"',
  'throw "gave up after {said}"',
  '',
].join('\n');

/** Everything the page holds: its markup (attributes, titles, hidden text) and what it shows. */
async function pageText(page: Page): Promise<string> {
  return `${await page.content()}\n${await page.locator('body').innerText()}`;
}

/**
 * Journey: a run whose agents print an env: secret, looked at everywhere an
 * operator looks — Runs, the run page, the attempt inspector, Errors (a group and its
 * occurrence), Flows (the flow's text) — shows the secret's name, never its value; a draft
 * edited from the shown text saves the real value back into the file.
 */
describe('a secret printed by an agent is on no screen', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  let runId: string;
  const look = async (what: string): Promise<void> => {
    const text = await pageText(app.page);
    expect(
      [TOKEN, SHORT].filter((secret) => text.includes(secret)),
      `${what} shows a secret`,
    ).toEqual([]);
  };

  beforeAll(async () => {
    server = await startServer({ flows: { 'leak.prose': LEAKY } });
    runId = await server.startRun('user/leak.prose', { virtualClock: true });
    await server.waitForRun(runId, ['failed']);
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/runs' });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('Runs, the run page and the inspector name the secret instead of showing it', async () => {
    const { page } = app;
    await page.locator(`.runs-table [role="row"][data-run-id="${runId}"]`).waitFor();
    await look('Runs');
    await app.screenshot('secrets-runs');

    await app.go(`#/runs/${runId}`);
    await page.locator('.run-header .badge.status[data-status="failed"]').waitFor();
    await look('the run page');
    const detail = await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`);
    const leakyTask = detail.tasks.find((t) => t.name.startsWith('use '))?.taskId as string;
    for (const attempt of [1, 2]) {
      await page.locator(`.tl-row[data-task-id="${leakyTask}"] .seg-attempt[data-attempt="${attempt}"]`).click();
      const inspector = page.getByTestId('attempt-inspector');
      await inspector.locator('.envelope-code', { hasText: 'RUNTIME_CRASHED' }).waitFor();
      const stderr = inspector.getByTestId('attempt-stderr');
      expect(await stderr.locator('pre').textContent()).toContain('err=[secret API_TOKEN] pw=[secret DB_PASSWORD]');
      await look(`the inspector of attempt ${attempt}`);
    }
    await app.screenshot('secrets-inspector');
    expect(app.problems).toEqual([]);
  });

  it('Errors, a group and its occurrence name the secret instead of showing it', async () => {
    const { page } = app;
    await app.go(`#/errors?run=${encodeURIComponent(runId)}&range=all`);
    const group = page.locator('.groups-table tbody tr', { has: page.locator('code', { hasText: 'RUNTIME_CRASHED' }) });
    await group.waitFor();
    await look('Errors');
    // The title link opens its page, with its occurrences.
    await group.locator('a.issue-link').click();
    await page.waitForURL(/#\/issues\//);
    await page.locator('.issue-occurrences .occurrence .occurrence-line').first().waitFor();
    await page.locator('.issue-occurrences .occurrence .occurrence-line').first().click();
    await look('an error occurrence');
    await app.screenshot('secrets-errors');
    expect(app.problems).toEqual([]);
  });

  it('Flows shows the flow with [secret NAME]; a draft saved from it keeps the real values in the file', async () => {
    const { page } = app;
    await app.go('#/flows/user/leak.prose');
    await page.locator('#flow-title', { hasText: 'leak' }).waitFor();
    await page.locator('.cm-content', { hasText: 'API_TOKEN=[secret API_TOKEN]' }).waitFor();
    // A setting beside the secrets is shown as written: only secret-named or declared values are hidden.
    expect(await page.locator('.cm-content').textContent()).toContain('"MODE=timeout"');
    await look('Flows');
    await page.getByRole('button', { name: 'Edit a draft and check it' }).click();
    const editor = page.getByRole('textbox', { name: 'Flow draft' });
    const shown = await editorText(editor);
    expect(shown).toContain('"DB_PASSWORD=[secret DB_PASSWORD]"');
    await pasteOver(editor, `# edited in the window\n${shown}`);
    await page.locator('[data-testid="check-result"]', { hasText: '✓ The draft checks.' }).waitFor();
    await look('the draft editor');
    await page.getByRole('textbox', { name: 'Flow file name' }).fill('leak-edited');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('#flow-title', { hasText: 'leak-edited' }).waitFor();
    await look('the saved flow');
    expect(readFileSync(join(server.flowsDir, 'leak-edited.prose'), 'utf8')).toBe(`# edited in the window\n${LEAKY}`);
    await app.screenshot('secrets-flows');
    expect(app.problems).toEqual([]);
  });
});
