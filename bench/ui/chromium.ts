import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserServer } from 'playwright-core';

/**
 * The one way the UI benches and the browser journeys (e2e/support/browser.ts) start Debian's
 * Chromium through playwright-core (Playwright's own browser download does not work here).
 */

/** Headless, no GPU, and nothing of Chromium's own that would reach out or work beside the page. */
const CHROME_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

/** `CHROME_PATH`, else Debian's; a clear error when there is none. */
export function chromePath(): string {
  const path = process.env.CHROME_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `No Chromium at ${path}. The browser journeys and the UI benches need one: install Debian's (\`apt-get install -y chromium\`) ` +
        'or point CHROME_PATH at a Chromium or Chrome binary.',
    );
  }
  return path;
}

/**
 * Chromium gets a temp dir of its own, removed once it is gone: it keeps its shared-memory files
 * (`.org.chromium.Chromium.*`) in TMPDIR and unlinks them right after creating them, so a browser
 * ended in that instant left one behind: the journeys' CI once said "tests left 1 entries", and
 * each quick run of the detail screens' bench left one in the OS temp folder.
 */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const tmp = mkdtempSync(join(tmpdir(), 'hivewatch-chromium-'));
  const removeTmp = (): void => rmSync(tmp, { recursive: true, force: true });
  try {
    const browser = await chromium.launch({ executablePath: chromePath(), args: [...CHROME_ARGS, ...extraArgs], env: { ...process.env, TMPDIR: tmp } });
    browser.on('disconnected', removeTmp);
    return browser;
  } catch (error) {
    removeTmp();
    throw error;
  }
}

/**
 * One Chromium that many processes connect to (`chromium.connect(server.wsEndpoint())`): the
 * journeys' global setup starts it once for the whole suite rather than each file starting its
 * own. Its temp dir is removed once it is closed.
 */
export async function launchChromiumServer(): Promise<BrowserServer> {
  const tmp = mkdtempSync(join(tmpdir(), 'hivewatch-chromium-'));
  const removeTmp = (): void => rmSync(tmp, { recursive: true, force: true });
  try {
    const server = await chromium.launchServer({ executablePath: chromePath(), args: CHROME_ARGS, env: { ...process.env, TMPDIR: tmp } });
    server.on('close', removeTmp);
    return server;
  } catch (error) {
    removeTmp();
    throw error;
  }
}
