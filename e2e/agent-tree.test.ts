import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { RunSummary } from '../core/service/api.js';
import { formatUsd } from '../core/common/usage-format.js';
import { printedTotalCost, replayRecording, type Replay } from '../core/testing/recorded-otlp.js';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the real Claude Code 2.1.332's recorded telemetry of two sessions (agents-real/fixtures,
 * Agent tool, against the provider stub) sent to `serve`'s receiver as it exported them, only the
 * times moved to now (core/testing/recorded-otlp.ts): one whose subagent's request got a 500
 * (`subagent-fails`), one with three levels of subagents (`subagent-nested`). The failed subagent
 * never reports `subagent_completed`: the quiet period (10 s, the sweep once a minute) ends its run
 * failed. The Runs list shows each session with its subagents folded and unfolds them level by
 * level; the sessions' pages draw the trees with each agent's status and spend, its own and its
 * subagents' apart, the root's in all equal to the CLI's own `total_cost_usd`. Both themes at 1440
 * and 900 px, axe.
 */

const FAILS = 'subagent-fails.json-out.otlp-json.retries-0';
const NESTED = 'subagent-nested.json-out.otlp-json.default-retries';
/** The shortest quiet period serve takes. */
const QUIET = '10s';

async function showAs(page: Page, colorScheme: 'light' | 'dark', width: number): Promise<void> {
  await page.emulateMedia({ colorScheme });
  await page.setViewportSize({ width, height: 900 });
  await page.reload();
  await page.locator('.topbar').waitFor();
}

async function scan(page: Page, where: string, failures: string[]): Promise<void> {
  const serious = seriousOrCritical(await runAxe(page));
  if (serious.length > 0) failures.push(describeViolations(where, serious));
}

/** The recording's exports posted in the order the CLI sent them. */
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

/** Unfolds every level of subagents under `row` in the Runs list, deepest last. */
async function unfoldAll(page: Page, sessionId: string, levels: number): Promise<void> {
  let parent = sessionId;
  for (let level = 0; level < levels; level++) {
    const row = page.locator(`.runs-table [role="row"][data-run-id="${parent}"]`);
    await row.getByRole('button', { name: `Show 1 subagent of run ${parent}` }).click();
    const child = page.locator('.runs-table [role="row"].run-subagent').nth(level);
    await child.waitFor();
    parent = (await child.getAttribute('data-run-id')) as string;
  }
}

const spend = (row: Locator, part: 'own' | 'subagents' | 'total') => row.locator(`.agent-spend [data-spend="${part}"]`).textContent();

describe('real Claude Code sessions with subagents: one failing, three levels', () => {
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

  it('folds the subagents under their sessions in Runs, and draws the trees with status and spend per agent', { timeout: 300_000 }, async () => {
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    expect(endpoint, server.output()).toBeDefined();
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1] as string;
    const fails = replayRecording('claude-code', FAILS, Date.now() - 120_000);
    const nested = replayRecording('claude-code', NESTED, Date.now() - 60_000);
    expect([fails.cliVersion, nested.cliVersion]).toEqual(['2.1.332', '2.1.332']);
    await send(endpoint!, token, fails);
    await send(endpoint!, token, nested);

    // Every run ends once the quiet period has passed: the failed subagent's with its 500.
    let runs: RunSummary[] = [];
    await expect
      .poll(
        async () => {
          runs = (await server.api<{ items: RunSummary[] }>('GET', '/api/runs?limit=20')).items;
          return runs.map((r) => r.status).sort();
        },
        { timeout: 180_000, interval: 2_000 },
      )
      .toEqual(['completed', 'completed', 'completed', 'completed', 'completed', 'failed']);
    const failsSession = runs.find((r) => r.flowName === 'Claude Code session e6917c83')!;
    const nestedSession = runs.find((r) => r.flowName === 'Claude Code session 24822b40')!;
    expect([failsSession.subagents, nestedSession.subagents]).toEqual([1, 1]);

    app = await openApp(browser, server, { hash: '#/runs', bypassCSP: true });
    const { page } = app;
    const sessionRow = (id: string) => page.locator(`.runs-table [role="row"][data-run-id="${id}"]`);
    const subagents = page.locator('.runs-table [role="row"].run-subagent');
    await sessionRow(nestedSession.id).waitFor();
    // Folded: only the sessions are listed, each with its subagent behind the toggle.
    await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(0);
    await sessionRow(failsSession.id)
      .getByRole('button', { name: `Show 1 subagent of run ${failsSession.id}` })
      .click();
    const failed = page.locator('.runs-table [role="row"].run-subagent[data-status="failed"]');
    await failed.waitFor();
    expect(await failed.locator('.run-link').textContent()).toMatch(/^general-purpose subagent [0-9a-f]{8}$/);
    expect(await failed.getByTestId('run-ending-code').textContent()).toContain('RUNTIME_PROVIDER_ERROR');
    // The failed subagent sits right under its session.
    const order = await page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    expect(order[order.indexOf(failsSession.id) + 1]).toBe(await failed.getAttribute('data-run-id'));

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await sessionRow(nestedSession.id).waitFor();
        // The nested session unfolded level by level (three subagents, each under the one that started it), then the failing one's.
        await unfoldAll(page, nestedSession.id, 3);
        await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(3);
        await sessionRow(failsSession.id)
          .getByRole('button', { name: `Show 1 subagent of run ${failsSession.id}` })
          .click();
        await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(4);
        expect(await subagents.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual([
          'completed',
          'completed',
          'completed',
          'failed',
        ]);
        await scan(page, `runs, subagents unfolded (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`agent-tree-runs-${colorScheme}-${width}`);
      }
    }

    // The failing session's tree: its own spend is all the CLI spent (the failed request cost nothing).
    await app.go(`#/runs/${encodeURIComponent(failsSession.id)}`);
    const tree = page.getByRole('region', { name: /Agents/ });
    await tree.waitFor();
    expect(await tree.locator('h2').textContent()).toBe('Agents (1 subagent)');
    const failsRoot = tree.locator('.agent-node[data-depth="0"] > .agent-row');
    expect(await spend(failsRoot, 'own')).toBe(`${formatUsd(printedTotalCost(fails.stdout))} own`);
    const failedNode = tree.locator('.agent-node[data-depth="1"] > .agent-row');
    expect(await failedNode.locator('.badge.status').getAttribute('data-status')).toBe('failed');
    expect(await failedNode.locator('.agent-facts').textContent()).toBe('1 request · 1 error');

    // The nested session's tree: four agents, each level's spend its own and its subagents' apart; in all, the CLI's total.
    await app.go(`#/runs/${encodeURIComponent(nestedSession.id)}`);
    await tree.locator(`.agent-node[data-run="${nestedSession.id}"]`).waitFor();
    expect(await tree.locator('h2').textContent()).toBe('Agents (3 subagents)');
    expect(await tree.locator('.agent-node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-depth')))).toEqual(['0', '1', '2', '3']);
    expect(await tree.locator('.agent-node .badge.status').evaluateAll((b) => b.map((x) => x.getAttribute('data-status')))).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
    ]);
    const level = (depth: number) => tree.locator(`.agent-node[data-depth="${depth}"] > .agent-row`);
    expect(await level(0).locator('[aria-current="page"]').textContent()).toBe('Claude Code session 24822b40');
    expect(await spend(level(0), 'total')).toBe(` · ${formatUsd(printedTotalCost(nested.stdout))} in all`);
    expect(await level(0).locator('.agent-spend').textContent()).toBe('$0.0007 own · $0.0011 subagents · $0.0018 in all');
    expect(await level(0).locator('.agent-facts').textContent()).toBe('3 requests');
    expect(await level(3).locator('.agent-spend').textContent()).toBe('$0.0002 own');

    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await tree.waitFor();
        await scan(page, `run page, agent tree (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`agent-tree-run-${colorScheme}-${width}`);
      }
    }
    expect(failures).toEqual([]);

    // A subagent's node opens its run, whose page draws the same tree with itself marked.
    await showAs(page, 'light', 1440);
    await level(3).locator('a.agent-name').click();
    await tree.locator('.agent-node[data-depth="3"] [aria-current="page"]').waitFor();
    expect(app.problems).toEqual([]);
  });
});
