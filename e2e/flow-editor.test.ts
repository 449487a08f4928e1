import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

const GOOD = `agent assistant:
  runtime: "fake"

session: assistant
  prompt: "Hello"
  simulate: "ok:hi"
`;

/** The editor's text area (CodeMirror's content, inside the editor host's open shadow root). */
const content = (page: Page): Locator => page.locator('[data-testid="flow-editor"] .cm-content');

/** Whether focus is in the editor's text: the document's focus is its host, the shadow root's the content. */
function editorFocused(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const host = document.querySelector('[data-testid="flow-editor"]');
    return document.activeElement === host && host?.shadowRoot?.activeElement?.classList.contains('cm-content') === true;
  });
}

/** Puts the cursor on `word` of a 1-based line (its last occurrence) and selects it, by keyboard. */
async function selectLastWordOfLine(page: Page, line: number): Promise<void> {
  await content(page).click();
  await page.keyboard.press('Control+Home');
  for (let i = 1; i < line; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.press('Control+Shift+ArrowLeft');
}

/** The left edge of the `^` in a diagnostic's line, and of the underlined text it points at. */
async function caretAndUnderline(page: Page): Promise<{ caret: number; underline: number }> {
  const caret = await page
    .locator('.cm-flow-diagnostic span[aria-hidden="true"]')
    .first()
    .evaluate((el) => {
      const text = el.firstChild as Text;
      const range = document.createRange();
      const at = (text.textContent ?? '').indexOf('^');
      range.setStart(text, at);
      range.setEnd(text, at + 1);
      return range.getBoundingClientRect().left;
    });
  const underline = await page
    .locator('.cm-lintRange-error')
    .first()
    .evaluate((el) => el.getBoundingClientRect().left);
  return { caret, underline };
}

/**
 * Journey: a flow is read and edited in the real editor (CodeMirror): line numbers, the checker's
 * colours, a typed mistake's diagnostic under its line with the caret at its column, the same
 * save / check / run, Tab that indents and Escape-then-Tab that leaves. The editor is a chunk of
 * its own that no other screen loads, and it runs under the window's CSP (no violation).
 */
describe('the flow editor', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;
  const chunks: string[] = [];

  beforeAll(async () => {
    server = await startServer({ flows: { 'base.prose': GOOD } });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/runs' });
    app.page.on('request', (r) => {
      if (/\/assets\/flow-editor-view-[\w-]+\.js/.test(r.url())) chunks.push(r.url());
    });
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('shows the file with line numbers and colours; a typed mistake is marked at its line and column; save, check and run work', async () => {
    const { page } = app;
    await page.locator('.runs-table, .state-empty').first().waitFor();
    expect(chunks).toEqual([]);

    await app.go('#/flows/user/base.prose');
    const source = page.getByRole('textbox', { name: 'Flow source' });
    await source.waitFor();
    expect(chunks).toHaveLength(1);
    expect(await source.getAttribute('aria-readonly')).toBe('true');
    // One number per line of the file, in the gutter.
    const numbers = page.locator('[data-testid="flow-editor"] .cm-lineNumbers .cm-gutterElement:visible');
    await expect.poll(() => numbers.allTextContents(), { timeout: PAGE_TIMEOUT_MS }).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    await page.locator('.cm-content .tok-keyword', { hasText: 'agent' }).waitFor();
    expect(await page.locator('.cm-content .tok-string').allTextContents()).toEqual(['"fake"', '"Hello"', '"ok:hi"']);

    await page.getByRole('button', { name: 'Edit a draft and check it' }).click();
    const draft = page.getByRole('textbox', { name: 'Flow draft' });
    await draft.waitFor();
    expect(await draft.getAttribute('aria-readonly')).toBeNull();

    // Typed, not pasted: "assistant" on line 4 becomes "nobody"; the check runs as it is typed.
    await selectLastWordOfLine(page, 4);
    await page.keyboard.type('nobody');
    const message = page.locator('.cm-flow-diagnostic[data-line="4"][data-column="10"]');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/^ {9}\^ 4:10 error: unknown agent "nobody"/);
    // Under line 4, the underline on the word at column 10.
    expect(await message.evaluate((el) => el.previousElementSibling?.textContent)).toBe('session: nobody');
    expect(await page.locator('.cm-lintRange-error').allTextContents()).toEqual(['nobody']);
    const { caret, underline } = await caretAndUnderline(page);
    expect(Math.abs(caret - underline)).toBeLessThan(1);
    await page.locator('[data-testid="check-result"]', { hasText: '✗ 1 error' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save draft' }).isDisabled()).toBe(true);
    await app.screenshot('flow-editor-diagnostic');

    // The diagnostic's place in the list above takes the keyboard to it.
    await page.locator('.diagnostic-list button', { hasText: '4:10' }).click();
    expect(await editorFocused(page)).toBe(true);

    // Fixed: the message goes, the draft checks and saves; the file is the draft.
    await selectLastWordOfLine(page, 4);
    await page.keyboard.type('assistant');
    await page.locator('[data-testid="check-result"]', { hasText: '✓ The draft checks.' }).waitFor();
    expect(await page.locator('.cm-flow-diagnostic').count()).toBe(0);
    await page.getByRole('textbox', { name: 'Flow file name' }).fill('edited');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('#flow-title', { hasText: 'edited' }).waitFor();
    expect(readFileSync(join(server.flowsDir, 'edited.prose'), 'utf8')).toBe(GOOD);

    // Run it from the same screen.
    await page.getByRole('checkbox', { name: /Virtual clock/ }).check();
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    expect(chunks).toHaveLength(1);
    expect(app.problems).toEqual([]);
  });

  it('Tab indents, Escape then Tab leaves the editor; typing never fires the window shortcuts', async () => {
    const { page } = app;
    await app.go('#/flows/user/base.prose');
    await page.getByRole('button', { name: 'Edit a draft and check it' }).click();
    const draft = page.getByRole('textbox', { name: 'Flow draft' });
    await draft.click();
    await page.keyboard.press('Control+End');
    // "g" then "r" is the go-to-Runs shortcut outside a field; here it is text.
    await page.keyboard.type('# gr');
    await page.keyboard.press('Home');
    await page.keyboard.press('Tab');
    expect(await editorFocused(page)).toBe(true);
    await expect.poll(() => page.locator('.cm-line').last().textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('  # gr');
    expect(page.url()).toContain('#/flows/user/base.prose');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    expect(await editorFocused(page)).toBe(false);
    // Focus moved on to the next control after the editor (the file name to save as).
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Flow file name');
    expect(app.problems).toEqual([]);
  });

  it('reads well and passes axe in both themes at 1440 and 900 px, the file and a draft with a problem', async () => {
    const looked = await openApp(browser, server, { hash: '#/flows/examples/01-happy-path.prose', bypassCSP: true });
    try {
      const { page } = looked;
      const look = async (name: string): Promise<void> => {
        for (const width of [1440, 900]) {
          for (const scheme of ['light', 'dark'] as const) {
            await page.setViewportSize({ width, height: 900 });
            await page.emulateMedia({ colorScheme: scheme });
            await page.locator('.source-head').scrollIntoViewIfNeeded();
            await looked.screenshot(`flow-editor-${name}-${width}-${scheme}`);
            const serious = seriousOrCritical(await runAxe(page));
            expect(serious, describeViolations(`the flow editor (${name}) at ${width} px, ${scheme}`, serious)).toEqual([]);
            expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
          }
        }
      };
      await page.getByRole('textbox', { name: 'Flow source' }).waitFor();
      await page.locator('.cm-content .tok-comment').first().waitFor();
      await look('file');
      // The editor's colours are the theme's: its background is the dark --surface-2.
      expect(await page.locator('[data-testid="flow-editor"] .cm-editor').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(28, 33, 43)');

      await looked.go('#/flows/user/base.prose?edit=1');
      await page.getByRole('textbox', { name: 'Flow draft' }).waitFor();
      await selectLastWordOfLine(page, 4);
      await page.keyboard.type('nobody');
      await page.locator('.cm-flow-diagnostic').waitFor();
      await page.mouse.move(0, 0);
      await look('draft');
      expect(looked.problems).toEqual([]);
    } finally {
      await looked.close();
    }
  });
});
