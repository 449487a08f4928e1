import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openApp, runRow, type AppPage, PAGE_TIMEOUT_MS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/** A deploy whose only retry crashes too: the run fails. */
const failing = (what: string): string => `agent worker:
  runtime: "fake"

session: worker
  prompt: "${what}"
  retry: 1
  simulate: "crash, crash"
`;

declare global {
  interface Window {
    __notes: { title: string; body: string }[];
  }
}

/**
 * Journey: with the notifications permission granted, a failed run shows a browser notification
 * (captured by wrapping window.Notification before the page's scripts run) and the title counts
 * it; a flow muted on the Flows screen (kept in the database) neither notifies nor counts.
 */
describe('failure notifications in the browser shell', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ flows: { 'deploy.prose': failing('Deploy the release'), 'quiet.prose': failing('Nightly cleanup') } });
    browser = await launchBrowser();
    app = await openApp(browser, server, { hash: '#/flows/user/quiet.prose' });
    await app.context.grantPermissions(['notifications'], { origin: server.origin });
    await app.page.addInitScript(() => {
      const Real = window.Notification;
      window.__notes = [];
      class Captured {
        onclick: ((this: Captured) => void) | null = null;
        constructor(title: string, options?: NotificationOptions) {
          window.__notes.push({ title, body: options?.body ?? '' });
        }
        close(): void {}
        static get permission(): NotificationPermission {
          return Real.permission;
        }
        static requestPermission(): Promise<NotificationPermission> {
          return Real.requestPermission();
        }
      }
      window.Notification = Captured as unknown as typeof Notification;
    });
    // The page's scripts run again with the wrapper in place (the token stays in this tab).
    await app.page.reload();
    await app.page.locator('#flow-title', { hasText: 'quiet' }).waitFor();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('mutes a flow from the Flows screen; a failure of another flow notifies and counts in the title', async () => {
    const { page } = app;
    await page.locator('[data-testid="notifications-state"]', { hasText: 'Notifications on' }).waitFor();
    const toggle = page.getByRole('checkbox', { name: 'Notify when a run fails' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await expect
      .poll(() => server.api<{ mutedFlows: string[] }>('GET', '/api/settings/notifications'), { timeout: PAGE_TIMEOUT_MS })
      .toEqual({ mutedFlows: ['user/quiet.prose'] });
    await app.screenshot('notify-flow-muted');

    await page.locator('.tab', { hasText: 'Runs' }).click();
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    const quiet = await server.startRun('user/quiet.prose', { virtualClock: true });
    await runRow(page, quiet).and(page.locator('[data-status="failed"]')).waitFor();
    const deploy = await server.startRun('user/deploy.prose', { virtualClock: true });
    await runRow(page, deploy).and(page.locator('[data-status="failed"]')).waitFor();

    await page.waitForFunction(() => window.__notes.length > 0);
    const notes = await page.evaluate(() => window.__notes);
    expect(notes).toEqual([{ title: 'Run failed: user/deploy.prose', body: expect.stringMatching(/^POLICY_RETRY_LIMIT_EXCEEDED: /) as unknown as string }]);
    expect(await page.title()).toBe('(1) Runs · Hivewatch');
    await page.locator('[data-testid="alert-count"]', { hasText: '1' }).waitFor();
    await app.screenshot('notify-title-count');
    expect(app.problems).toEqual([]);
  });
});
