import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorEnvelope } from '../core/base/errors/envelope.js';
import { resourceAttributes } from '../core/runtimes/presets/telemetry-env.js';
import { decodeOtlp } from '../core/otel/receive/decode.js';
import { OtelIngester } from '../core/otel/receive/ingest.js';
import { openStore, type HivewatchStore } from '../core/store/index.js';
import { tempDirs } from '../core/testing/temp-dirs.js';
import { anthropic, startAnthropicStub } from './stubs/anthropic-stub.js';
import { claudeEnv } from './cli/claude.js';
import { startEgressGuard } from './stubs/egress-guard.js';
import { installedCli } from './cli/install.js';
import { liveTitle } from './live.js';
import { startOtlpCapture, type CapturedExport } from './otlp/otlp-capture.js';
import { baseEnv, makeTempHome, runCli, type CliResult } from './cli/run-cli.js';
import { logsNamed } from './otlp/telemetry.js';

/**
 * Claude Code as it is (the pinned version) with two hooks, against the Anthropic stub: a
 * UserPromptSubmit hook that exits 1 (a non-blocking error) and a PreToolUse hook on Bash that
 * exits 2 (it blocks the call). What it exports, sent through the ingester, is AGENT_HOOK_FAILED
 * and AGENT_HOOK_BLOCKED from `hook:<name>` (docs/otel.md "Hooks, compaction, refusals, internal
 * errors, MCP servers").
 */

const install = await installedCli('claude-code');
const OTLP_TOKEN = 'hivewatch-ingest-token-not-a-secret';
const tempDir = tempDirs();

let result: CliResult;
let exports: CapturedExport[];
let store: HivewatchStore;

beforeAll(async () => {
  if (!install.ok) return;
  const stub = await startAnthropicStub([
    anthropic.tool('Bash', { command: 'echo hivewatch-tool-ran', description: 'Print a marker' }),
    anthropic.text('The hook blocked the command.'),
  ]);
  const capture = await startOtlpCapture({ token: OTLP_TOKEN });
  const guard = await startEgressGuard();
  const home = makeTempHome();
  try {
    const settings = join(home.root, 'hooks-settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'exit 1' }] }],
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "blocked by the hivewatch test" >&2; exit 2' }] }],
        },
      }),
    );
    const context = {
      stubUrl: stub.url,
      otlpUrl: capture.url,
      otlpToken: OTLP_TOKEN,
      resourceAttributes: resourceAttributes({ runId: 'run-h', taskId: 'task-1', attempt: 1 }),
    };
    const env = claudeEnv({ cli: 'claude-code', scenario: 'tool', output: 'json', protocol: 'json', retries: 'default' }, context);
    // An unlinked session: the hook errors are its own (a linked one leaves its outcome to the attempt).
    delete env.OTEL_RESOURCE_ATTRIBUTES;
    result = await runCli({
      command: install.bin,
      args: [
        '-p',
        'Run the shell command `echo hivewatch-tool-ran` and tell me what it printed.',
        '--output-format',
        'stream-json',
        '--verbose',
        '--allowedTools',
        'Bash(echo:*)',
        '--settings',
        settings,
      ],
      cwd: home.work,
      env: { ...baseEnv(home), ...guard.env(), ...env, CLAUDE_CONFIG_DIR: join(home.root, '.claude') },
      deadlineMs: 120_000,
    });
    await capture.idle();
    exports = [...capture.exports];
  } finally {
    await Promise.all([stub.close(), capture.close(), guard.close()]);
    home.remove();
  }
  store = await openStore({ path: join(tempDir('hw-hooks-real-'), 'hw.db') });
}, 180_000);

afterAll(async () => {
  await store?.close();
});

describe.skipIf(!install.ok)(liveTitle('claude-code', install, 'hooks'), () => {
  it('exports hook_execution_complete with the counts its docs name: a non-blocking error, then a block', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    const done = logsNamed(exports, 'claude_code.hook_execution_complete').map((e) => e.attributes);
    expect(done.map((a) => [a.hook_event, a.num_blocking, a.num_non_blocking_error, a.num_cancelled])).toEqual(
      expect.arrayContaining([
        ['UserPromptSubmit', '0', '1', '0'],
        ['PreToolUse', '1', '0', '0'],
      ]),
    );
    expect(logsNamed(exports, 'claude_code.hook_execution_start').length).toBeGreaterThanOrEqual(2);
    // The blocked call is reported as a permission decision too, made by the hook.
    expect(logsNamed(exports, 'claude_code.tool_decision').map((e) => [e.attributes.decision, e.attributes.source])).toEqual([['reject', 'hook']]);
  });

  it("ingested: AGENT_HOOK_FAILED and AGENT_HOOK_BLOCKED from hook:<name> (the hook's decision no second error), and the prompt ends failed with the block", async () => {
    // The CLI ran on the wall clock: its records are read against the time it ended.
    const endedAt = Date.now();
    const quietMs = 60_000;
    let runId: string | undefined;
    for (const [i, e] of exports.filter((x) => x.signal === 'logs').entries()) {
      const ingester = new OtelIngester(store, { now: () => endedAt, quietMs });
      const { runIds } = await ingester.ingest(decodeOtlp('logs', e.encoding === 'json' ? 'json' : 'protobuf', e.payload), `hooks-${i}`);
      runId ??= runIds[0];
    }
    const errors = (await store.getEvents(runId!)).flatMap((e) => (e.type === 'errorOccurred' ? [e.error as ErrorEnvelope] : []));
    expect(errors.map((e) => [e.code, e.origin, e.message])).toEqual([
      ['AGENT_HOOK_FAILED', 'hook:UserPromptSubmit', 'claude-code: hook UserPromptSubmit failed (a non-blocking error)'],
      ['AGENT_HOOK_BLOCKED', 'hook:PreToolUse-Bash', 'claude-code: hook PreToolUse:Bash blocked PreToolUse'],
    ]);
    await new OtelIngester(store, { now: () => endedAt + quietMs + 1, quietMs }).sweep();
    const detail = (await store.getRun(runId!))!;
    expect(detail.tasks.map((t) => t.status)).toEqual(['failed']);
    expect(detail.run).toMatchObject({ status: 'failed', lastErrorCode: 'AGENT_HOOK_BLOCKED' });
  });
});
