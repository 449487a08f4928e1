import type { Locator } from 'playwright-core';

/**
 * The flow editor (CodeMirror, in an open shadow root that Playwright's locators reach into)
 * driven as an operator does. Playwright's `fill` types into a contenteditable through the
 * browser's own editing, which wraps multi-line text in elements with inline styles the window's
 * CSP refuses; an operator replacing the text selects it all and pastes, which CodeMirror
 * handles itself. So does this.
 */
export async function pasteOver(editor: Locator, text: string): Promise<void> {
  await editor.click();
  await editor.press('Control+A');
  await editor.evaluate((el, pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

/** The text in the editor: its lines joined (widgets under a line, such as a diagnostic, are not lines). */
export async function editorText(editor: Locator): Promise<string> {
  return (await editor.locator('.cm-line').allTextContents()).join('\n');
}
