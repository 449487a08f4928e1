import type { BrowserServer } from 'playwright-core';
import { launchChromiumServer } from '../../bench/ui/chromium.js';
import { ensureProductionRenderer } from '../../bench/ui/renderer-build.js';
import { SHARED_BROWSER_ENV } from './shared-browser.js';

/**
 * The browser journeys drive the built window (renderer-dist/, what `hivewatch serve` serves):
 * rebuilt before any suite when it is stale (bench/ui/renderer-build.ts says when), so a stale
 * build never passes for current code. Vitest sets NODE_ENV=test, which `vite build` would
 * inherit and answer with React's development build; the build there sets production.
 *
 * Then one Chromium for every journey file: each file connects to it and works in browser
 * contexts of its own (as isolated from the other files' as separate browsers: no shared cookies,
 * storage or cache), where starting a Chromium per file cost one to three seconds each of the
 * suite's two cores. Set in the environment before the test processes fork, so each inherits it.
 * A machine without Chromium starts none here; the journeys then say so when they launch one.
 */
export default async function setup(): Promise<() => Promise<void>> {
  ensureProductionRenderer(process.cwd());
  let server: BrowserServer | null = null;
  try {
    server = await launchChromiumServer();
    process.env[SHARED_BROWSER_ENV] = server.wsEndpoint();
  } catch {
    // No Chromium: launchBrowser() in a journey raises chromePath()'s message.
  }
  return async () => {
    delete process.env[SHARED_BROWSER_ENV];
    await server?.close();
  };
}
