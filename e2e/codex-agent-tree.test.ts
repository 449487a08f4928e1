import { execFileSync } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../core/service/api.js';
import { replayRecording, type Replay } from '../core/testing/recorded-otlp.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the real Codex 0.171.0's recorded telemetry of a session whose agent spawns a thread
 * that spawns another (agents-real/fixtures/codex-cli `subagent-nested`: spawn_agent and
 * wait_agent against the provider stub), sent to `serve`'s receiver as Codex exported it (traces,
 * then the metrics flushed at exit, then the logs with the spawn records), only the times moved to
 * now. The spawned threads' runs start from their traces before any record names their parent, so
 * the tree is made by the late link (docs/otel.md "Subagents"). The Runs list folds both threads
 * under the session; the session's page draws the chain of three agents. Both themes at 1440 and
 * 900 px, axe.
 */

const NESTED = 'subagent-nested.json-out.otlp-json.default-retries';
/** The shortest quiet period serve takes: the threads' runs end after it. */
const QUIET = '10s';

async function showAs(page: Page, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  await page.locator('.topbar').waitFor();
}

async function send(endpoint: string, token: string, replay: Replay): Promise<void> {
  for (const { signal, body } of replay.payloads) {
    const response = await fetch(`${endpoint}/v1/${signal}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    expect(response.status, await response.text()).toBe(200);
  }
}

describe('a real Codex session whose spawned thread spawns another', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ args: ['--otel-port', '0', '--otel-idle', QUIET] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('folds the threads under the session in Runs and draws the chain on its page', { timeout: 300_000 }, async () => {
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    expect(endpoint, server.output()).toBeDefined();
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1] as string;
    const nested = replayRecording('codex-cli', NESTED, Date.now() - 60_000);
    expect(nested.cliVersion).toBe('0.171.0');
    expect(nested.payloads.map((p) => p.signal)).toContain('metrics');
    await send(endpoint!, token, nested);

    let runs: RunSummary[] = [];
    await expect
      .poll(
        async () => {
          runs = (await server.api<{ items: RunSummary[] }>('GET', '/api/runs?limit=20')).items;
          return runs.map((r) => `${r.status} ${r.spawnedBy ? 'child' : 'root'}`).sort();
        },
        { timeout: 180_000, interval: 2_000 },
      )
      .toEqual(['completed child', 'completed child', 'completed root']);
    const session = runs.find((r) => !r.spawnedBy)!;
    const first = runs.find((r) => r.spawnedBy === session.id)!;
    const second = runs.find((r) => r.spawnedBy === first.id)!;
    expect([session.subagents, first.subagents, second.subagents ?? 0]).toEqual([1, 1, 0]);

    app = await openApp(browser, server, { hash: '#/runs', bypassCSP: true });
    const { page } = app;
    const row = (id: string) => page.locator(`.runs-table [role="row"][data-run-id="${id}"]`);
    const subagents = page.locator('.runs-table [role="row"].run-subagent');
    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await row(session.id).waitFor();
        await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(0);
        await row(session.id)
          .getByRole('button', { name: `Show 1 subagent of run ${session.id}` })
          .click();
        await row(first.id)
          .getByRole('button', { name: `Show 1 subagent of run ${first.id}` })
          .click();
        await expect
          .poll(() => subagents.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id'))), { timeout: 10_000 })
          .toEqual([first.id, second.id]);
        // A thread's name leads with the word subagent, which a 900 px column still shows once it cuts the name.
        for (const id of [first.id, second.id]) {
          expect(await row(id).locator('.run-link').textContent()).toMatch(/subagent [0-9a-f]{8}…[0-9a-f]{8} · Codex CLI$/);
        }
        const serious = seriousOrCritical(await runAxe(page));
        if (serious.length > 0) failures.push(describeViolations(`runs, threads unfolded (${colorScheme}, ${width} px)`, serious));
        await app.screenshot(`codex-agent-tree-runs-${colorScheme}-${width}`);
      }
    }

    await app.go(`#/runs/${encodeURIComponent(session.id)}`);
    const tree = page.getByRole('region', { name: /Agents/ });
    await tree.waitFor();
    expect(await tree.locator('h2').textContent()).toBe('Agents (2 subagents)');
    expect(await tree.locator('.agent-node').evaluateAll((nodes) => nodes.map((n) => `${n.getAttribute('data-depth')} ${n.getAttribute('data-run')}`))).toEqual(
      [`0 ${session.id}`, `1 ${first.id}`, `2 ${second.id}`],
    );
    expect(await tree.locator('.agent-node .badge.status').evaluateAll((b) => b.map((x) => x.getAttribute('data-status')))).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    // The threads' ids share their first eight digits (a version 7 id starts with its clock): their labels still differ.
    const labels = await tree.locator('.agent-node .agent-name').allTextContents();
    expect(labels).toHaveLength(3);
    expect(new Set(labels).size).toBe(3);
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await tree.waitFor();
        const serious = seriousOrCritical(await runAxe(page));
        if (serious.length > 0) failures.push(describeViolations(`run page, agent tree (${colorScheme}, ${width} px)`, serious));
        await app.screenshot(`codex-agent-tree-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);
    expect(app.problems).toEqual([]);
  });
});
