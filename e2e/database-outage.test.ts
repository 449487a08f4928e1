import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { HivewatchEvent } from '../core/service/api.js';
import { postgresBinaries, postgresMissing } from '../core/store/testing/test-databases.js';
import { outageFlow } from '../core/testing/outage-flow.js';
import { startPostgresCluster, type PostgresCluster } from '../core/testing/postgres-cluster.js';
import { skipTitle } from '../core/testing/skip.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp } from './support/browser.js';
import { isolatedEnv, startServer, tempDir, type ServerHandle } from './support/server.js';

/**
 * Journey: `hivewatch serve` on a team database whose server stops while a run works. The window
 * says so in one line under the top bar, "Database unavailable for N s, 1 run waiting", counting,
 * with no toast; the run waits (the journal's 2-minute window) and completes once the server is
 * back, and the line goes. Screenshots at 1440 and 900 px in both themes; axe on the banner.
 */

describe.skipIf(!postgresBinaries)(skipTitle('the window while its database is away', postgresMissing), () => {
  let cluster: PostgresCluster;
  let browser: Browser;
  let server: ServerHandle;
  const dir = tempDir('database-outage');
  // A team database keeps this machine's flows under $XDG_DATA_HOME/hivewatch/flows, which
  // startServer moves under `dir`.
  const flow = outageFlow(join(isolatedEnv(dir).XDG_DATA_HOME!, 'hivewatch'));

  beforeAll(async () => {
    cluster = await startPostgresCluster(postgresBinaries!, { durableCommits: true });
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE window_outage');
    await admin.end();
    server = await startServer({ dir, db: cluster.url('window_outage'), args: ['--otel-port', 'off'] });
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    cluster?.stop();
  });

  it('one line counts the outage and the waiting run, no toast; the run completes once the server is back and the line goes', async () => {
    const app = await openApp(browser, server, { bypassCSP: true });
    const { page } = app;
    const runId = await server.startRun('user/outage.prose');
    flow.go(1);
    await expect
      .poll(
        async () =>
          (await server.api<HivewatchEvent[]>('GET', `/api/runs/${runId}/events?limit=1000`)).some((e) => e.type === 'attemptProcess' && e.step === 2),
        {
          message: 'session 2 at work',
          timeout: 30_000,
        },
      )
      .toBeTruthy();
    const banner = page.getByTestId('database-unavailable');
    expect(await banner.isVisible()).toBe(false);

    cluster.halt();
    flow.go(2);
    await banner.waitFor({ state: 'visible', timeout: 30_000 });
    await page.waitForFunction(
      () => /^Database unavailable for [1-9]\d* s, 1 run waiting$/.test(document.querySelector('[data-testid="database-unavailable"]')?.textContent ?? ''),
      null,
      {
        timeout: 30_000,
      },
    );
    expect(await page.locator('.toast').count()).toBe(0);
    const serious = seriousOrCritical(await runAxe(page));
    expect(serious, describeViolations('the runs screen with the database banner', serious)).toEqual([]);
    await app.screenshot('database-outage-1440');
    await page.emulateMedia({ colorScheme: 'dark' });
    await app.screenshot('database-outage-1440-dark');
    const seriousDark = seriousOrCritical(await runAxe(page));
    expect(seriousDark, describeViolations('the banner, dark', seriousDark)).toEqual([]);
    await page.setViewportSize({ width: 900, height: 800 });
    await app.screenshot('database-outage-900-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await app.screenshot('database-outage-900');
    const serious900 = seriousOrCritical(await runAxe(page));
    expect(serious900, describeViolations('the banner at 900 px', serious900)).toEqual([]);

    cluster.restart();
    await banner.waitFor({ state: 'hidden', timeout: 30_000 });
    flow.go(3);
    expect((await server.waitForRun(runId, ['completed', 'failed'], 60_000)).run.status).toBe('completed');
    expect(await page.locator('.toast').count()).toBe(0);
    expect(app.problems.filter((p) => !/503|Failed to load resource/.test(p))).toEqual([]);
    await app.close();
  });
});
