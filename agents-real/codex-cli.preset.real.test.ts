import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installedCli } from './cli/install.js';
import { liveTitle } from './live.js';
import { openai, type OpenAiStep } from './stubs/openai-stub.js';
import { envList, startPresetWorld, type PresetWorld } from './cli/preset-harness.js';

/**
 * The `codex-cli` preset with the real Codex 0.169.0: the engine is the
 * one retry owner (the stub counts one request per engine attempt: the preset turned the
 * provider's own request and stream retries off), a 403 is a user error never retried, a
 * command the approval policy refuses is AGENT_SCOPE_VIOLATION naming it, the attempt runs
 * outside any git repository (the preset adds --skip-git-repo-check), and a successful
 * attempt's telemetry is linked to it. Without the preset's overrides the same 429 costs 6
 * requests (codex-cli.retries.real.test.ts).
 */

const install = await installedCli('codex-cli');
const KEY_VARIABLE = 'HIVEWATCH_STUB_OPENAI_KEY';

let world: PresetWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** The user's own config.toml: a custom provider (the stub) with no retry settings, and nothing that leaves loopback. */
function codexHome(w: PresetWorld): string {
  const home = join(w.home.root, '.codex');
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'config.toml'),
    [
      'model_provider = "corp-gateway"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[features]',
      'plugins = false',
      '[model_providers.corp-gateway]',
      'name = "The team\'s gateway (the stub)"',
      `base_url = ${JSON.stringify(`${w.stub.url}/v1`)}`,
      'wire_api = "responses"',
      `env_key = "${KEY_VARIABLE}"`,
      '',
    ].join('\n'),
  );
  return home;
}

async function runCodex(script: OpenAiStep[], retry: number): Promise<{ w: PresetWorld; runId: string }> {
  if (!install.ok) throw new Error('unreachable: the suite is skipped without the CLI');
  const w = await startPresetWorld('codex-cli', script);
  world = w;
  const env = { ...w.home.env(), CODEX_HOME: codexHome(w), [KEY_VARIABLE]: 'sk-proj-hivewatch-stub-key-not-a-secret', ...w.guard.env() };
  const runId = await w.run(
    'codex',
    [
      'agent codex:',
      '  runtime: "codex-cli"',
      `  command: ${JSON.stringify(install.bin)}`,
      `  cwd: ${JSON.stringify(w.outside)}`,
      `  env: ${envList(env)}`,
      '',
      `session: codex (retry: ${retry})`,
      '  prompt: "Say hello."',
      '',
    ].join('\n'),
  );
  return { w, runId };
}

const requests = (w: PresetWorld): number => w.stub.requests.filter((r) => r.n > 0).length;

describe.skipIf(!install.ok)(liveTitle('codex-cli', install, 'the codex-cli preset, the engine the one retry owner'), () => {
  it('429 every time, retry: 2: three engine attempts of one request each, RUNTIME_RATE_LIMIT, one failure', async () => {
    const { w, runId } = await runCodex([openai.rateLimited(1)], 2);
    const detail = (await w.store.getRun(runId))!;
    expect(detail.run.status).toBe('failed');
    expect(detail.attempts.map((a) => [a.attempt, a.status, a.errorCode])).toEqual([
      [1, 'failed', 'RUNTIME_RATE_LIMIT'],
      [2, 'failed', 'RUNTIME_RATE_LIMIT'],
      [3, 'failed', 'RUNTIME_RATE_LIMIT'],
    ]);
    expect(requests(w)).toBe(3);
    expect(w.guard.attempts).toEqual([]);
    // One failure: the retry policy gave up, its root the rate limit; no second one from the CLI's own telemetry.
    expect((await w.store.failureCounts({ by: 'rootCode' })).rows.map((r) => [r.key, r.count])).toEqual([['RUNTIME_RATE_LIMIT', 1]]);
  });

  it('403: a user error on the first attempt, never retried (one request)', async () => {
    const { w, runId } = await runCodex([openai.forbidden()], 2);
    const detail = (await w.store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'USER_INVALID_CONFIG']]);
    expect(detail.run.endingCode).toBe('USER_INVALID_CONFIG');
    expect(requests(w)).toBe(1);
    expect((await w.store.failureCounts({ by: 'code' })).total).toBe(1);
  });

  it('429 then success: attempt 1 failed (1 request), attempt 2 succeeded (1 request) with its Codex telemetry linked inside it', async () => {
    const { w, runId } = await runCodex([openai.rateLimited(1), openai.text('Hello from the stub.')], 2);
    const detail = (await w.store.getRun(runId))!;
    expect(detail.run.status).toBe('completed');
    expect(detail.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(w.stub.requests.filter((r) => r.n > 0).map((r) => r.answer)).toEqual(['error 429', 'text']);
    // Codex flushes at exit 0: the attempt that succeeded always sends its call. The failed one exits 1 without
    // flushing, so it sends its call only when a periodic export (every second) caught it first: sometimes.
    await vi.waitFor(async () => expect((await w.store.attemptTelemetry(runId)).map((l) => l.attempt)).toContain(2), { timeout: 30_000, interval: 100 });
    const links = await w.store.attemptTelemetry(runId);
    expect(links.every((l) => l.taskId === detail.tasks[0]!.taskId && l.origin === 'runtime:codex-cli')).toBe(true);
    const view = await w.service.getRun({ runId });
    expect(view!.tasks[0]!.attempts[1]!.telemetry).toEqual([
      expect.objectContaining({ apiCalls: 1, errors: 0, calls: [{ n: 1, status: 'succeeded', code: null, message: null }] }),
    ]);
    for (const call of view!.tasks[0]!.attempts[0]!.telemetry?.flatMap((t) => t.calls ?? []) ?? []) {
      expect(call).toMatchObject({ status: 'failed', code: 'RUNTIME_RATE_LIMIT' });
    }
    expect((await w.store.failureCounts({ by: 'code' })).total).toBe(0);
  });

  it('a command the approval policy refuses: AGENT_SCOPE_VIOLATION naming it, not retried', async () => {
    const escalate = openai.tool('exec_command', {
      cmd: 'touch /etc/hivewatch-was-here',
      sandbox_permissions: 'require_escalated',
      justification: 'needs to write',
    });
    const { w, runId } = await runCodex([escalate, openai.text('I could not run it.')], 2);
    const detail = (await w.store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'AGENT_SCOPE_VIOLATION']]);
    expect(detail.attempts[0]!.error?.context).toMatchObject({ denials: [{ tool: 'exec_command', detail: 'touch /etc/hivewatch-was-here' }] });
    expect(requests(w)).toBe(2);
  });
});
