import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApp } from './support/browser.js';
import { editorText, pasteOver } from './support/editor.js';
import { useJourney } from './support/journey.js';
import { ROOT } from './support/server.js';

/**
 * Journey: edit a draft of an example, see it checked (and highlighted), save it into the
 * operator's folder, find it in the list, start it, and find that run under its recent runs.
 */
describe('save a draft as a flow of your own and start it', () => {
  const journey = useJourney({ hash: '#/flows/examples/01-happy-path.prose' });

  it('writes a draft, checks it, saves it, lists it and starts it', async () => {
    const { server, browser, app } = journey;
    const { page } = app;
    await page.locator('#flow-title', { hasText: '01-happy-path' }).waitFor();
    // The source is coloured from the checker's lexer.
    await page.locator('.cm-content .tok-keyword', { hasText: 'agent' }).first().waitFor();
    expect(await page.locator('.cm-content .tok-string').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Edit a draft and check it' }).click();
    const editor = page.getByRole('textbox', { name: 'Flow draft' });
    await editor.waitFor();
    const source = readFileSync(join(ROOT, 'examples', '01-happy-path.prose'), 'utf8');
    expect(await editorText(editor)).toBe(source);

    // A draft that does not check cannot be saved.
    await pasteOver(editor, `${source}\nsession\n  bogus: 1\n`);
    await page.locator('[data-testid="check-result"]', { hasText: '✗' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save draft' }).isDisabled()).toBe(true);

    const draft = `# My release, from the happy path.\n${source}`;
    await pasteOver(editor, draft);
    await page.locator('[data-testid="check-result"]', { hasText: '✓ The draft checks.' }).waitFor();
    const name = page.getByRole('textbox', { name: 'Flow file name' });
    expect(await name.inputValue()).toBe('01-happy-path-copy');
    await name.fill('my-release');
    await app.screenshot('flows-save-draft');
    await page.getByRole('button', { name: 'Save draft' }).click();

    // Saved: listed under Your flows, selected, the file on disk is the draft.
    await page.waitForURL(/#\/flows\/user(%2F|\/)my-release\.prose$/);
    await page.locator('.flow-item[data-flow-id="user/my-release.prose"]').waitFor();
    await page.locator('#flow-title', { hasText: 'my-release' }).waitFor();
    expect(readFileSync(join(server.flowsDir, 'my-release.prose'), 'utf8')).toBe(draft);
    await page.locator('.cm-content .tok-comment', { hasText: '# My release, from the happy path.' }).waitFor();

    // Saving over it asks first; "Keep it" keeps the file.
    await page.getByRole('button', { name: 'Edit a draft and check it' }).click();
    await pasteOver(editor, draft.replace('My release', 'Changed'));
    await page.locator('[data-testid="check-result"]', { hasText: '✓ The draft checks.' }).waitFor();
    expect(await name.inputValue()).toBe('my-release');
    await page.getByRole('button', { name: 'Save draft' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Replace my-release.prose?').waitFor();
    await app.screenshot('flows-save-replace');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    expect(readFileSync(join(server.flowsDir, 'my-release.prose'), 'utf8')).toBe(draft);
    await page.getByRole('button', { name: 'Back to the file' }).click();

    // Start it; the run completes and is among the flow's recent runs.
    await page.getByRole('checkbox', { name: /Virtual clock/ }).check();
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    const runId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    await app.go('#/flows/user/my-release.prose');
    await page.locator(`[data-testid="recent-runs"] li[data-run-id="${runId}"]`).waitFor();
    await page.locator(`[data-testid="recent-runs"] li[data-run-id="${runId}"] [data-status="completed"]`).waitFor();
    await app.screenshot('flows-saved-recent-runs');
    expect(app.problems).toEqual([]);

    // The dark theme's colours (held to 4.5:1 in syntax-colors.test.ts), looked at.
    const dark = await openApp(browser, server, { colorScheme: 'dark', hash: '#/flows/user/my-release.prose' });
    try {
      await dark.page.locator('.cm-content .tok-keyword').first().waitFor();
      expect(
        await dark.page
          .locator('.cm-content .tok-keyword')
          .first()
          .evaluate((el) => getComputedStyle(el).color),
      ).toBe('rgb(200, 162, 255)');
      await dark.screenshot('flows-highlight-dark');
      expect(dark.problems).toEqual([]);
    } finally {
      await dark.close();
    }
  });
});
