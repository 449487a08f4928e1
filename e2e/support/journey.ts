import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, openApp, type AppPage } from './browser.js';
import { startServer, type ServerHandle } from './server.js';

export interface Journey {
  readonly server: ServerHandle;
  readonly browser: Browser;
  readonly app: AppPage;
}

/**
 * One server, one browser and one app page for a describe block: started before its first test,
 * closed after its last. Read the parts inside a test (`const { app, server } = journey`); they
 * do not exist before `beforeAll` ran.
 */
export function useJourney(options: { hash?: string } = {}): Journey {
  let server: ServerHandle | undefined;
  let browser: Browser | undefined;
  let app: AppPage | undefined;
  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    app = await openApp(browser, server, options.hash !== undefined ? { hash: options.hash } : {});
  });
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });
  const started = <T>(part: T | undefined, name: string): T => {
    if (part === undefined) throw new Error(`the journey's ${name} is not started: read it inside a test`);
    return part;
  };
  return {
    get server() {
      return started(server, 'server');
    },
    get browser() {
      return started(browser, 'browser');
    },
    get app() {
      return started(app, 'app page');
    },
  };
}
