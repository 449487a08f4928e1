import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { describeViolations, runAxe, seriousOrCritical } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: a Claude Code session that started two subagents, one of which failed, sent to
 * `serve`'s receiver as OTLP/JSON logs. The records are written here (hand-written, named as
 * such) with the attribute names and values the real Claude Code 2.1.332 sent in its recording
 * of a subagent (agents-real/fixtures/claude-code/subagent.*: `agent_id`, `agent.name`,
 * `query_source` "agent:builtin:<kind>", `subagent_completed`). The Runs list shows the session
 * with its subagents folded, unfolds them; the session's page draws the tree with each agent's
 * status and spend, its own and its subagents' apart. Both themes at 1440 and 900 px, axe.
 */

const SESSION = 'b7e0c6f2-5a41-4c1e-9d3a-2f6b8e1c0a97';
const EXPLORE = 'a3c9e1f40b2d6e817';
const REVIEW = 'f05b7d2c9e1a3b648';

/** One Claude Code log record as its exporter sends it: every value text, `event.name` bare. */
function record(event: string, at: number, attributes: Record<string, string>) {
  return {
    timeUnixNano: `${at * 1_000_000}`,
    body: { stringValue: `claude_code.${event}` },
    attributes: Object.entries({ 'event.name': event, 'session.id': SESSION, 'prompt.id': 'prompt-1', ...attributes }).map(([key, value]) => ({
      key,
      value: { stringValue: value },
    })),
  };
}

const request = (cost: string, agent: Record<string, string> = {}): Record<string, string> => ({
  model: 'claude-opus-5-5',
  input_tokens: '1200',
  output_tokens: '300',
  cache_read_tokens: '0',
  cache_creation_tokens: '0',
  cost_usd: cost,
  duration_ms: '900',
  ...agent,
});

function sessionPayload(t0: number): Buffer {
  const explore = { agent_id: EXPLORE, 'agent.name': 'Explore', query_source: 'agent:builtin:Explore' };
  const review = { agent_id: REVIEW, 'agent.name': 'general-purpose', query_source: 'agent:builtin:general-purpose' };
  const logRecords = [
    record('user_prompt', t0, { prompt_length: '42' }),
    record('api_request', t0 + 1_000, request('0.25', { query_source: 'sdk' })),
    record('api_request', t0 + 2_000, request('0.25', explore)),
    record('subagent_completed', t0 + 2_500, { agent_id: EXPLORE, agent_type: 'Explore', total_tokens: '1500' }),
    record('api_request', t0 + 3_000, request('0.125', review)),
    record('api_error', t0 + 4_000, {
      ...review,
      model: 'claude-opus-5-5',
      status_code: '500',
      error: 'Internal server error',
      duration_ms: '400',
      attempt: '1',
    }),
    record('subagent_completed', t0 + 4_500, { agent_id: REVIEW, agent_type: 'general-purpose', total_tokens: '1500' }),
    record('api_request', t0 + 5_000, request('0.25', { query_source: 'sdk' })),
  ];
  const body = {
    resourceLogs: [
      {
        resource: {
          attributes: [
            { key: 'service.name', value: { stringValue: 'claude-code' } },
            { key: 'service.version', value: { stringValue: '2.1.332' } },
          ],
        },
        scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords }],
      },
    ],
  };
  return Buffer.from(JSON.stringify(body));
}

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

describe('a Claude Code session with two subagents, one failing', () => {
  let server: ServerHandle;
  let browser: Browser;
  let app: AppPage;

  beforeAll(async () => {
    server = await startServer({ args: ['--otel-port', '0'] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
  });

  it('folds the subagents under their session in Runs, and draws the tree with status and spend per agent', async () => {
    const endpoint = /OTel:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
    expect(endpoint, server.output()).toBeDefined();
    const env = execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath], { cwd: ROOT, encoding: 'utf8' });
    const token = /Authorization=Bearer ([A-Za-z0-9_-]+)/.exec(env)?.[1];
    const response = await fetch(`${endpoint}/v1/logs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Uint8Array(sessionPayload(Date.now() - 60_000)),
    });
    expect(response.status, await response.text()).toBe(200);

    app = await openApp(browser, server, { hash: '#/runs', bypassCSP: true });
    const { page } = app;
    const session = page.locator('.runs-table [role="row"]', { hasText: 'Claude Code session b7e0c6f2' });
    await session.waitFor();
    const sessionId = (await session.getAttribute('data-run-id')) as string;
    // Folded: only the session is listed, with its two subagents behind the toggle.
    const toggle = session.getByRole('button', { name: `Show 2 subagents of run ${sessionId}` });
    await toggle.waitFor();
    await expect.poll(() => page.locator('.runs-table [role="row"].run-subagent').count(), { timeout: 10_000 }).toBe(0);
    await toggle.click();
    const subagents = page.locator('.runs-table [role="row"].run-subagent');
    await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(2);
    expect(await session.getByRole('button', { name: `Hide 2 subagents of run ${sessionId}` }).getAttribute('aria-expanded')).toBe('true');
    const failed = page.locator('.runs-table [role="row"].run-subagent[data-status="failed"]');
    expect(await failed.locator('.run-link').textContent()).toBe('general-purpose subagent f05b7d2c');
    expect(await failed.getByTestId('run-ending-code').textContent()).toContain('RUNTIME_PROVIDER_ERROR');
    expect(await page.locator('.runs-table [role="row"].run-subagent[data-status="completed"] .run-link').textContent()).toBe('Explore subagent a3c9e1f4');
    // The subagents sit right under their session.
    const order = await page.locator('.runs-table [role="row"][data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')));
    expect(order.indexOf(sessionId)).toBe(order.length - 3);

    const failures: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1440, 900]) {
        await showAs(page, colorScheme, width);
        await session.waitFor();
        await session.getByRole('button', { name: /Show 2 subagents/ }).click();
        await expect.poll(() => subagents.count(), { timeout: 10_000 }).toBe(2);
        await scan(page, `runs, subagents unfolded (${colorScheme}, ${width} px)`, failures);
        await app.screenshot(`agent-tree-runs-${colorScheme}-${width}`);
      }
    }

    await app.go(`#/runs/${encodeURIComponent(sessionId)}`);
    const tree = page.getByRole('region', { name: /Agents/ });
    await tree.waitFor();
    expect(await tree.locator('h2').textContent()).toBe('Agents (2 subagents)');
    const nodes = tree.locator('.agent-node');
    expect(await nodes.count()).toBe(3);
    const root = tree.locator(`.agent-node[data-run="${sessionId}"] > .agent-row`);
    expect(await root.locator('[aria-current="page"]').textContent()).toBe('Claude Code session b7e0c6f2');
    // The session's own spend ($0.50), its subagents' ($0.25 + $0.125) apart, and the two added: nothing counted twice.
    expect(await root.locator('.agent-spend').textContent()).toBe('$0.50 own · $0.38 subagents · $0.88 in all');
    const review = tree.locator('.agent-node[data-depth="1"]', { hasText: 'general-purpose' }).locator('> .agent-row');
    expect(await review.locator('.badge.status').getAttribute('data-status')).toBe('failed');
    expect(await review.locator('.agent-facts').textContent()).toBe('2 requests · 1 error');
    expect(await review.locator('.agent-spend').textContent()).toBe('$0.13 own');
    const explore = tree.locator('.agent-node[data-depth="1"]', { hasText: 'Explore' }).locator('> .agent-row');
    expect(await explore.locator('.badge.status').getAttribute('data-status')).toBe('completed');
    expect(await explore.locator('.agent-spend').textContent()).toBe('$0.25 own');

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
    await review.locator('a.agent-name').click();
    await tree.locator('.agent-node[data-depth="1"] [aria-current="page"]', { hasText: 'general-purpose' }).waitFor();
    expect(app.problems).toEqual([]);
  });
});
