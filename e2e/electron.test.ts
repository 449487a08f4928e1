import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright-core';
import { detectElectron } from '../server/launcher.js';
import { SCREENSHOTS } from './support/browser.js';
import { ROOT, tempDir } from './support/server.js';
import { skipTitle } from '../core/testing/skip.js';

/**
 * The smoke journey through the desktop shell: start an example from Flows and watch it
 * complete. Electron's binary cannot be downloaded on every machine (its installer fetches it
 * from outside the npm registry), so without one this is skipped, saying why.
 */

const detected = detectElectron(ROOT);
const display = process.env.DISPLAY ?? (existsSync('/usr/bin/Xvfb') ? ':97' : null);
const skipReason = !detected.ok ? detected.reason : display === null ? 'no display and no Xvfb to make one' : null;
if (skipReason) console.warn(`[e2e] Electron journey skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)(skipTitle('the same journey in the Electron window', skipReason), () => {
  let xvfb: ChildProcess | null = null;
  let appHandle: ElectronApplication;
  let page: Page;
  let dir = '';

  beforeAll(async () => {
    dir = tempDir('electron');
    if (!process.env.DISPLAY && display) xvfb = spawn('/usr/bin/Xvfb', [display, '-screen', '0', '1440x900x24'], { stdio: 'ignore' });
    appHandle = await electron.launch({
      executablePath: (detected as { binary: string }).binary,
      args: [join(ROOT, 'dist', 'electron', 'main.js'), '--db', join(dir, 'hivewatch.db')],
      cwd: ROOT,
      env: { ...process.env, ...(display ? { DISPLAY: display } : {}) },
    });
    page = await appHandle.firstWindow();
  });

  afterAll(async () => {
    await appHandle?.close();
    xvfb?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts 01-happy-path from Flows and shows it completed', async () => {
    expect(await page.evaluate(() => typeof (window as unknown as { hivewatch?: unknown }).hivewatch)).toBe('object');
    await page.evaluate(() => {
      window.location.hash = '#/flows/examples%2F01-happy-path.prose';
    });
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/runs\/run_/);
    await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
    expect(await page.locator('.tl-row[data-task-id]').count()).toBe(3);
    await page.screenshot({ path: join(SCREENSHOTS, 'electron-run-completed.png') });
  });
});
