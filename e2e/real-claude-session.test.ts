import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../core/service/api.js';
import { skipTitle } from '../core/testing/skip.js';
import { anthropic } from '../agents-real/stubs/anthropic-stub.js';
import { CLAUDE_STUB_API_KEY } from '../agents-real/cli/claude.js';
import { startEgressGuard, type EgressGuard } from '../agents-real/stubs/egress-guard.js';
import { cliCommand } from '../agents-real/cli/faked-clock.js';
import { installedCli } from '../agents-real/cli/install.js';
import { startAnthropicStub } from '../agents-real/stubs/anthropic-stub.js';
import type { ProviderStub } from '../agents-real/stubs/provider-stub.js';
import { baseEnv, makeTempHome, runCli, type TempHome } from '../agents-real/cli/run-cli.js';
import { runAxe } from './support/axe.js';
import { launchBrowser, openApp, type AppPage } from './support/browser.js';
import { BIN, ROOT, startServer, type ServerHandle } from './support/server.js';

/**
 * Journey: the real Claude Code 2.1.332, pointed at a real `hivewatch serve` with
 * what `hivewatch otel-env` prints, runs one session of three prompts (`--resume` keeps its
 * session id) against the Anthropic stub with `CLAUDE_CODE_MAX_RETRIES=1`: a 429 the CLI
 * retried and recovered from, a 429 it retried and gave up on, and a 401 (retried once, then
 * given up). After the quiet period the window shows the session failed, the retried tries as
 * attempts of their prompts (the recovered one among them), and one unhandled failure: the 401
 * that ended the last prompt; the exhausted 429 of the prompt before is handled.
 */

const install = await installedCli('claude-code');
const skip = install.ok ? null : `the CLI cache is unavailable (${install.reason})`;
/** The shortest quiet period serve takes; its sweep runs once a minute. */
const QUIET = '10s';

/** `export K=V` / `export K="V"` lines of `hivewatch otel-env`, as the shell would set them. */
function exportsOf(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) env[match[1]!] = match[2]!.replace(/^"(.*)"$/, '$1');
  return env;
}

describe('a real Claude Code session in the window', () => {
  let server: ServerHandle;
  let stub: ProviderStub;
  let guard: EgressGuard;
  let home: TempHome;
  let browser: Browser;
  let app: AppPage | undefined;

  beforeAll(async () => {
    if (skip) return;
    server = await startServer({ args: ['--otel-port', '0', '--otel-idle', QUIET] });
    stub = await startAnthropicStub([
      anthropic.rateLimited(1),
      anthropic.text('First answer.'),
      anthropic.rateLimited(1),
      anthropic.rateLimited(1),
      anthropic.unauthorized(),
    ]);
    guard = await startEgressGuard();
    home = makeTempHome();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.stop();
    await stub?.close();
    await guard?.close();
    home?.remove();
  });

  it.skipIf(skip !== null)(
    skipTitle('shows the recovered retries, one unhandled failure and a failed session', skip),
    async () => {
      if (!install.ok) return;
      const port = /OTel:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(server.output())?.[1];
      expect(port, server.output()).toBeDefined();
      const otelEnv = exportsOf(execFileSync(process.execPath, [BIN, 'otel-env', '--db', server.dbPath, '--port', port!], { cwd: ROOT, encoding: 'utf8' }));
      expect(otelEnv).toMatchObject({ OTEL_TRACES_EXPORTER: 'otlp', CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: '1' });
      const env = {
        ...baseEnv(home),
        ...guard.env(),
        ...otelEnv,
        CLAUDE_CONFIG_DIR: `${home.root}/.claude`,
        ANTHROPIC_BASE_URL: stub.url,
        ANTHROPIC_API_KEY: CLAUDE_STUB_API_KEY,
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_MAX_RETRIES: '1',
        CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '30000',
      };
      const claude = (prompt: string, resume: string | null) =>
        runCli({
          command: install.bin,
          args: ['-p', prompt, '--output-format', 'json', ...(resume ? ['--resume', resume] : [])],
          cwd: home.work,
          env,
          deadlineMs: 120_000,
        });
      const first = await claude('Say one thing.', null);
      expect(first.exitCode, first.stderr).toBe(0);
      const sessionId = String((JSON.parse(first.stdout) as { session_id: string }).session_id);
      expect((await claude('Say another thing.', sessionId)).exitCode).toBe(1);
      expect((await claude('Say a third thing.', sessionId)).exitCode).toBe(1);
      // Requests per prompt prove who retried: the CLI, once each (CLAUDE_CODE_MAX_RETRIES=1).
      expect(stub.requests.filter((r) => r.n > 0).map((r) => r.answer)).toEqual(['error 429', 'text', 'error 429', 'error 429', 'error 401', 'error 401']);
      expect(guard.attempts).toEqual([]);

      // The session ends after the quiet period (serve's sweep runs once a minute).
      let detail: RunDetail | undefined;
      await expect
        .poll(
          async () => {
            const runs = (await server.api<{ items: { id: string; flow: string }[] }>('GET', '/api/runs?limit=10')).items.filter(
              (r) => r.flow === 'external:claude-code',
            );
            detail = runs[0] ? await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runs[0].id)}`) : undefined;
            return detail?.run.status;
          },
          { timeout: 150_000, interval: 1_000 },
        )
        .toBe('failed');
      const tasks = detail!.tasks;
      expect(tasks.map((t) => t.status)).toEqual(['succeeded', 'failed', 'failed']);
      expect(tasks.map((t) => t.attempts.map((a) => a.status))).toEqual([
        ['failed', 'succeeded'],
        ['failed', 'failed'],
        ['failed', 'failed'],
      ]);
      expect(tasks.map((t) => t.attempts.at(-1)!.error?.code ?? null)).toEqual([null, 'RUNTIME_RATE_LIMIT', 'USER_INVALID_CONFIG']);

      app = await openApp(browser, server, { hash: `#/runs/${encodeURIComponent(detail!.run.id)}`, bypassCSP: true });
      const { page } = app;
      await page.locator('.run-header .badge.status[data-status="failed"]').waitFor();
      const rows = page.locator('.tl-row[data-task-id]');
      await rows.nth(2).waitFor();
      const outcomes = await rows.evaluateAll((els) =>
        els.map((row) => [...row.querySelectorAll('.seg-attempt')].map((seg) => [...seg.classList].find((c) => c.startsWith('outcome-')))),
      );
      // The first prompt's retried try and the request that recovered, then the exhausted 429 and the 401, each with the CLI's retry.
      expect(outcomes).toEqual([
        ['outcome-failed', 'outcome-succeeded'],
        ['outcome-failed', 'outcome-failed'],
        ['outcome-failed', 'outcome-failed'],
      ]);
      await shots(app, 'real-claude-session');

      await app.go('#/errors?range=24h');
      const total = page.getByTestId('errors-total');
      await expect.poll(async () => (await total.textContent()) ?? '', { timeout: 30_000 }).toMatch(/^1 failure · [1-9]\d* occurrences\b/);
      expect(await page.getByTestId('errors-unhandled').textContent()).toBe('1 unhandled');
      await shots(app, 'real-claude-session-errors');
      expect(app.problems).toEqual([]);
      // Three CLI runs, then the quiet period and serve's once-a-minute sweep.
    },
    240_000,
  );

  it.skipIf(skip !== null)(
    skipTitle('a claude-code preset attempt shows the calls its CLI reported inside it', skip),
    async () => {
      if (!install.ok) return;
      // The preset turns the CLI's retries off: a 429 fails the attempt, the engine retries (virtual clock), then success.
      const presetStub = await startAnthropicStub([anthropic.rateLimited(1), anthropic.text('Done.')]);
      try {
        const env = {
          ...home.env(),
          ...guard.env(),
          CLAUDE_CONFIG_DIR: `${home.root}/.claude-preset`,
          ANTHROPIC_BASE_URL: presetStub.url,
          ANTHROPIC_API_KEY: CLAUDE_STUB_API_KEY,
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '30000',
        };
        const agentEnv = `[${Object.entries(env)
          .map(([k, v]) => JSON.stringify(`${k}=${v}`))
          .join(', ')}]`;
        writeFileSync(
          join(server.flowsDir, 'claude-preset.prose'),
          `agent claude:\n  runtime: "claude-code"\n  command: ${JSON.stringify(cliCommand(install.bin, home.root))}\n  cwd: ${JSON.stringify(home.work)}\n  env: ${agentEnv}\n\nsession: claude (retry: 1)\n  prompt: "Say hello."\n`,
        );
        const runId = await server.startRun('user/claude-preset.prose', { virtualClock: true });
        await server.waitForRun(runId, ['completed'], 120_000);
        expect(presetStub.requests.filter((r) => r.n > 0).map((r) => r.answer)).toEqual(['error 429', 'text']);
        // Each attempt's CLI session arrives when that CLI exits (Claude Code flushes at any exit).
        await expect
          .poll(
            async () =>
              (await server.api<RunDetail>('GET', `/api/runs/${encodeURIComponent(runId)}`)).tasks[0]!.attempts.map(
                (a) => a.telemetry?.[0]?.calls?.map((c) => c.status) ?? [],
              ),
            { timeout: 60_000 },
          )
          .toEqual([['failed'], ['succeeded']]);

        app ??= await openApp(browser, server, { bypassCSP: true });
        await app.go(`#/runs/${encodeURIComponent(runId)}`);
        const { page } = app;
        await page.locator('.run-header .badge.status[data-status="completed"]').waitFor();
        await page.locator('.tl-row[data-task-id] .seg-attempt[data-attempt="1"]').click();
        const calls = page.getByRole('list', { name: 'API calls runtime:claude-code reported inside this attempt' });
        await calls.waitFor();
        expect(await calls.locator('li').allTextContents()).toEqual([expect.stringMatching(/^failed: RUNTIME_RATE_LIMIT — /)]);
        await calls.scrollIntoViewIfNeeded();
        await shots(app, 'real-claude-preset-attempt-telemetry', async () => calls.scrollIntoViewIfNeeded());
        expect(app.problems).toEqual([]);
      } finally {
        await presetStub.close();
      }
    },
    240_000,
  );
});

/** The screen at 1400 and 900 px wide, light and dark, each with no serious or critical axe violation. */
async function shots(app: AppPage, name: string, frame: () => Promise<void> = async () => undefined): Promise<void> {
  for (const width of [1400, 900]) {
    for (const scheme of ['light', 'dark'] as const) {
      await app.page.setViewportSize({ width, height: 900 });
      await app.page.emulateMedia({ colorScheme: scheme });
      await frame();
      await app.screenshot(`${name}-${width}-${scheme}`);
      const serious = (await runAxe(app.page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(
        serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
        `${name} ${width}px ${scheme}`,
      ).toEqual([]);
    }
  }
  await app.page.setViewportSize({ width: 1440, height: 900 });
  await app.page.emulateMedia({ colorScheme: 'light' });
}
