import { afterEach, describe, expect, it } from 'vitest';
import { anthropic, type AnthropicStep } from './stubs/anthropic-stub.js';
import { CLAUDE_STUB_API_KEY } from './cli/claude.js';
import { cliCommand } from './cli/faked-clock.js';
import { installedCli } from './cli/install.js';
import { liveTitle } from './live.js';
import { envList, linkedSessions, startPresetWorld, type PresetWorld } from './cli/preset-harness.js';

/**
 * The `claude-code` preset with the real Claude Code 2.1.332 and its telemetry: Claude Code flushes its exporters whatever its exit code, so a failed attempt's failure
 * arrives twice — as the preset's reading of the CLI's result and as the CLI's `api_error` — and
 * must count once, with one code; the CLI's calls show inside the attempt.
 */

const install = await installedCli('claude-code');

let world: PresetWorld | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

async function runClaude(script: AnthropicStep[], retry: number): Promise<{ w: PresetWorld; runId: string }> {
  if (!install.ok) throw new Error('unreachable: the suite is skipped without the CLI');
  const w = await startPresetWorld('claude-code', script);
  world = w;
  const env = {
    ...w.home.env(),
    CLAUDE_CONFIG_DIR: `${w.home.root}/.claude`,
    ANTHROPIC_BASE_URL: w.stub.url,
    ANTHROPIC_API_KEY: CLAUDE_STUB_API_KEY,
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // The exit flush has 2 s by default; a loaded machine needs more (docs/real-agents.md "Exports").
    CLAUDE_CODE_OTEL_SHUTDOWN_TIMEOUT_MS: '30000',
    ...w.guard.env(),
  };
  const runId = await w.run(
    'claude',
    [
      'agent claude:',
      '  runtime: "claude-code"',
      `  command: ${JSON.stringify(cliCommand(install.bin, w.home.root))}`,
      `  cwd: ${JSON.stringify(w.home.work)}`,
      `  env: ${envList(env)}`,
      '',
      `session: claude (retry: ${retry})`,
      '  prompt: "Say hello."',
      '',
    ].join('\n'),
  );
  return { w, runId };
}

describe.skipIf(!install.ok)(liveTitle('claude-code', install, 'the claude-code preset and its linked telemetry'), () => {
  it("401: one attempt, one request, USER_INVALID_CONFIG once — the CLI's api_error is a failed call inside the attempt, not a second failure", async () => {
    const { w, runId } = await runClaude([anthropic.unauthorized()], 2);
    const detail = (await w.store.getRun(runId))!;
    expect(detail.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'USER_INVALID_CONFIG']]);
    expect(w.stub.requests.filter((r) => r.n > 0)).toHaveLength(1);
    const [link] = await linkedSessions(w.store, runId, 1);
    const session = (await w.store.getRun(link!.runId))!;
    expect(session.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'USER_INVALID_CONFIG']]);
    // Counted once: the run's error and its ending; the session adds neither an occurrence nor a failure.
    const errors = (await w.store.listErrors({ limit: 10 })).errors;
    expect(errors.map((e) => [e.runId, e.code])).toEqual([[runId, 'USER_INVALID_CONFIG']]);
    expect((await w.store.failureCounts({ by: 'code' })).rows.map((r) => [r.key, r.count])).toEqual([['USER_INVALID_CONFIG', 1]]);
    const view = await w.service.getRun({ runId });
    expect(view!.tasks[0]!.attempts[0]!.telemetry).toEqual([
      expect.objectContaining({
        runId: link!.runId,
        apiCalls: 1,
        errors: 1,
        calls: [expect.objectContaining({ n: 1, status: 'failed', code: 'USER_INVALID_CONFIG' })],
      }),
    ]);
    expect(w.guard.attempts).toEqual([]);
  });
});
