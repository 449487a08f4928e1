import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILING_FLOW, TestReceiver } from '../core/service/alerts/testing.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, PAGE_TIMEOUT_MS, SCREENSHOTS } from './support/browser.js';
import { startServer, type ServerHandle } from './support/server.js';

/**
 * Settings › Alerts in Chromium against the real `serve`: a refused rule shows
 * the service's exact message, an added rule is listed with its webhook redacted, "Send test"
 * reaches a real receiver on 127.0.0.1 and the delivery log shows it sent with HTTP 200, and
 * the rule is removed after a confirmation. Then both themes at 1440 and 900 px: a screenshot
 * each, and no serious or critical axe violation. Last, a rule for the desktop alone (no webhook):
 * with the notifications permission granted, a failed run shows one browser notification for it
 * (window.Notification wrapped before the page's scripts run) as soon as the stream says it was
 * stored (the window's own beat stopped), and a click on it opens the run.
 */

declare global {
  interface Window {
    __alertNotes: { title: string; body: string; tag: string; click(): void }[];
  }
}

let server: ServerHandle;
let browser: Browser;
const receiver = new TestReceiver();
let hook = '';

beforeAll(async () => {
  hook = await receiver.start();
  server = await startServer({ flows: { 'fails.prose': FAILING_FLOW, 'fails-too.prose': FAILING_FLOW } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver.stop();
});

describe('Settings › Alerts', () => {
  it('refuses a bad rule, adds one with its secret hidden, sends a test to a real receiver, shows it in the log', async () => {
    const app = await openApp(browser, server, { hash: '#/settings/alerts' });
    try {
      const { page } = app;
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      expect(await page.title()).toBe('Alerts · Settings · Hivewatch');
      await page.getByText('No alert rules yet').waitFor();

      await page.getByLabel('Webhook URL').fill('ftp://bot:hunter2@example.com/hook');
      await page.getByRole('button', { name: 'Add rule' }).click();
      await expect
        .poll(() => page.locator('#alert-form-problem').textContent(), { timeout: PAGE_TIMEOUT_MS })
        .toBe('--webhook must be an http or https URL, not ftp:');

      await page.getByLabel('When').selectOption('retrying-longer-than');
      await page.getByLabel('Duration (e.g. 10m, 1h)').fill('ten');
      await page.getByLabel('Webhook URL').fill(`${hook}/services/T0/B0/sekrit?token=t0ken`);
      await page.getByRole('button', { name: 'Add rule' }).click();
      await expect
        .poll(() => page.locator('#alert-form-problem').textContent(), { timeout: PAGE_TIMEOUT_MS })
        .toBe('retrying-longer-than needs a duration like retrying-longer-than=10m, got "retrying-longer-than=ten"');

      await page.getByLabel('When').selectOption('run-failed');
      await page.getByLabel('Body').selectOption('slack');
      await page.getByRole('button', { name: 'Add rule' }).click();
      const rules = page.getByTestId('alert-rules');
      await rules.waitFor();
      const row = rules.locator('tbody tr');
      await expect.poll(() => row.count(), { timeout: PAGE_TIMEOUT_MS }).toBe(1);
      const origin = new URL(hook).host;
      expect(await row.locator('td').nth(2).textContent()).toBe(`http://${origin}/…`);
      expect(await page.content()).not.toMatch(/sekrit|t0ken|hunter2/);

      await page.getByRole('button', { name: /^Send test for rule alr_/ }).click();
      await page.getByText(/^Test of alr_\w+: sent \(HTTP 200\)$/).waitFor();
      expect(receiver.requests.map((r) => r.path)).toEqual(['/services/T0/B0/sekrit?token=t0ken']);
      expect(Object.keys(receiver.bodies()[0]!).sort()).toEqual(['blocks', 'text']);
      const log = page.getByTestId('alert-deliveries');
      await log.waitFor();
      expect(await log.locator('tbody tr td').nth(3).textContent()).toBe('sent');
      expect(await log.locator('tbody tr td').nth(4).textContent()).toBe('200');
      // The two refusals are 400 answers, which Chromium logs as failed loads; nothing else went wrong.
      expect(app.problems.filter((p) => !p.includes('status of 400 (Bad Request)'))).toEqual([]);
      expect(app.problems).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [1440, 900]) {
      it(`${colorScheme} theme at ${width} px: screenshot, no serious or critical axe violation`, async () => {
        const app = await openApp(browser, server, { colorScheme, hash: '#/settings/alerts', bypassCSP: true });
        try {
          const { page } = app;
          await page.setViewportSize({ width, height: 900 });
          await page.getByTestId('alert-deliveries').waitFor();
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, 'the page does not scroll sideways').toBeLessThanOrEqual(0);
          const remove = await page.getByRole('button', { name: /^Remove rule alr_/ }).boundingBox();
          expect(remove!.x + remove!.width, 'Remove is on screen').toBeLessThanOrEqual(width);
          await app.screenshot(`alerts-${colorScheme}-${width}`);
          await page.screenshot({ path: join(SCREENSHOTS, `alerts-${colorScheme}-${width}.png`), fullPage: true });
          const serious = seriousOrCritical(await runAxe(page));
          expect(serious, describeViolations(`alerts (${colorScheme}, ${width} px)`, serious)).toEqual([]);
        } finally {
          await app.close();
        }
      });
    }
  }

  it('removes a rule after a confirmation; its deliveries stay in the log', async () => {
    const app = await openApp(browser, server, { hash: '#/settings/alerts' });
    try {
      const { page } = app;
      await page.getByRole('button', { name: /^Remove rule alr_/ }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
      await page.getByText('No alert rules yet').waitFor();
      await expect.poll(() => page.getByTestId('alert-deliveries').locator('tbody tr').count(), { timeout: PAGE_TIMEOUT_MS }).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('a desktop-only rule: added without a webhook, its firing shows one browser notification whose click opens the run', async () => {
    const app = await openApp(browser, server, { hash: '#/settings/alerts' });
    try {
      const { page } = app;
      await app.context.grantPermissions(['notifications'], { origin: server.origin });
      await page.addInitScript(() => {
        const Real = window.Notification;
        window.__alertNotes = [];
        class Captured {
          onclick: (() => void) | null = null;
          constructor(title: string, options?: NotificationOptions) {
            window.__alertNotes.push({ title, body: options?.body ?? '', tag: options?.tag ?? '', click: () => this.onclick?.() });
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
        // The window's 5 s read of the feed never comes (renderer/main.tsx), so each notification
        // below can only have come from the stream's word that a desktop alert was stored.
        const realSetInterval = window.setInterval.bind(window);
        window.setInterval = ((handler: TimerHandler, ms?: number, ...rest: unknown[]) =>
          ms === 5_000 ? 0 : realSetInterval(handler, ms, ...rest)) as typeof window.setInterval;
      });
      await page.reload();
      await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
      await page.locator('[data-testid="notifications-state"]', { hasText: 'Notifications on' }).waitFor();
      const feedReads: string[] = [];
      page.on('request', (request) => {
        const path = new URL(request.url()).pathname;
        if (path === '/api/alerts/desktop') feedReads.push(request.url());
        // A read asked beside others travels in a batch (renderer/api/read-batch.ts).
        if (path === '/api/batch') {
          const { calls } = request.postDataJSON() as { calls: { method: string }[] };
          for (const call of calls) if (call.method === 'listDesktopAlerts') feedReads.push(request.url());
        }
      });

      await page.getByLabel('Desktop notification').check();
      expect(await page.getByLabel('Webhook URL (optional)').getAttribute('required')).toBeNull();
      await page.getByRole('button', { name: 'Add rule' }).click();
      const row = page.getByTestId('alert-rules').locator('tbody tr');
      await expect.poll(() => row.count(), { timeout: PAGE_TIMEOUT_MS }).toBe(1);
      expect(await row.locator('td').nth(2).textContent()).toBe('Desktop');
      await app.screenshot('alerts-desktop-rule');

      const runId = await server.startRun('user/fails.prose', { virtualClock: true });
      const alertNotes = () =>
        page.evaluate(() => window.__alertNotes.filter((n) => n.tag.startsWith('hivewatch-alert-')).map(({ title, body }) => ({ title, body })));
      await expect
        .poll(alertNotes, { timeout: 60_000 })
        .toEqual([
          { title: 'Alert: run failed', body: expect.stringMatching(new RegExp(`^Run ${runId} of user/fails\\.prose failed: `)) as unknown as string },
        ]);
      // A failure of another flow (the rule's throttle holds a second one of the same flow): its
      // read of the feed looks back past the first and gets both firings; the first is not shown again.
      const readsThen = feedReads.length;
      const second = await server.startRun('user/fails-too.prose', { virtualClock: true });
      await expect.poll(() => alertNotes().then((notes) => notes.map((n) => n.body.split(' ')[1])), { timeout: 60_000 }).toEqual([runId, second]);
      expect(feedReads.length).toBeGreaterThan(readsThen);

      await page.evaluate(() => window.__alertNotes.find((n) => n.tag.startsWith('hivewatch-alert-'))!.click());
      await expect.poll(() => page.evaluate(() => window.location.hash), { timeout: PAGE_TIMEOUT_MS }).toBe(`#/runs/${encodeURIComponent(runId)}`);
      expect(receiver.requests).toHaveLength(1);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  });
  it('the delivery log shows a firing and its POST as they happen, without Refresh', async () => {
    const rule = await server.api<{ id: string }>('POST', '/api/alerts/rules', { when: 'run-failed', webhook: `${hook}/live-log`, throttle: '0' });
    const app = await openApp(browser, server, { hash: '#/settings/alerts' });
    try {
      const { page } = app;
      const log = page.getByTestId('alert-deliveries');
      await log.waitFor();
      const ours = log.locator('tbody tr', { has: page.locator('td.mono', { hasText: rule.id }) });
      expect(await ours.count()).toBe(0);
      const runId = await server.startRun('user/fails.prose', { virtualClock: true });
      await server.waitForRun(runId, ['failed']);
      await expect.poll(() => ours.locator('td').nth(3).textContent(), { timeout: PAGE_TIMEOUT_MS }).toBe('sent');
      expect(await ours.locator('td').nth(4).textContent()).toBe('200');
      expect(await ours.count()).toBe(1);
      expect(receiver.requests.filter((r) => r.path === '/live-log')).toHaveLength(1);
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
      await server.api('POST', `/api/alerts/rules/${rule.id}/remove`, {});
    }
  });
});
