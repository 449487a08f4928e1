import { describe, expect, it } from 'vitest';
import { CLAUDE_ARGV_ECHO, CODEX_ARGV_ECHO, writeCliStandIn } from '../../testing/cli-stand-in.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { ClaudeCodeRuntime } from './claude-code.js';
import { CodexCliRuntime } from './codex-cli.js';
import type { AttemptProcessReport, SessionRuntime } from '../runtime.js';
import { agent, attempt, NEVER } from '../testing.js';

/**
 * The presets say, with the process they spawned, which exporter they pointed at the receiver
 * (docs/otel.md "Telemetry health"): a real stand-in CLI per case, the report as the engine gets it.
 * Only a child that will send to the receiver, marked with its attempt, is expected to be heard from.
 */

const standIns = tempDirs()('hw-preset-exporter-');
const TARGET = { endpoint: 'http://127.0.0.1:9', token: 'token-1' };

/** The `telemetry` the runtime reported with its started process (null: none reported). */
async function reportedExporter(runtime: SessionRuntime, spec: ReturnType<typeof agent>): Promise<string | null> {
  const reports: AttemptProcessReport[] = [];
  const result = await runtime.execute(attempt({ prompt: 'the prompt', agent: spec, reportProcess: (r) => reports.push(r) }), NEVER);
  expect(result.kind).toBe('succeeded');
  const started = reports.find((r) => r.kind === 'started');
  expect(started).toBeDefined();
  return started?.kind === 'started' ? (started.telemetry ?? null) : null;
}

describe('the exporter a preset gave its CLI', () => {
  it('claude-code: reported with a receiver, not without one, not when the agent env: sends it elsewhere or turns it off', async () => {
    const command = writeCliStandIn(standIns, 'claude', CLAUDE_ARGV_ECHO);
    const spec = (env: Record<string, string> = {}) => agent({ runtime: 'claude-code', command, env });
    const withReceiver = new ClaudeCodeRuntime({ telemetry: () => TARGET });
    expect(await reportedExporter(withReceiver, spec())).toBe('runtime:claude-code');
    expect(await reportedExporter(new ClaudeCodeRuntime(), spec())).toBeNull();
    expect(await reportedExporter(new ClaudeCodeRuntime({ telemetry: () => null }), spec())).toBeNull();
    expect(await reportedExporter(withReceiver, spec({ CLAUDE_CODE_ENABLE_TELEMETRY: '0' }))).toBeNull();
    expect(await reportedExporter(withReceiver, spec({ OTEL_LOGS_EXPORTER: 'console' }))).toBeNull();
    expect(await reportedExporter(withReceiver, spec({ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://collector:4318/v1/logs' }))).toBeNull();
    // Its records would not name the attempt, so they could not count as the attempt's.
    expect(await reportedExporter(withReceiver, spec({ OTEL_RESOURCE_ATTRIBUTES: 'team=a' }))).toBeNull();
    // Names that do not decide where its logs go leave it expected.
    expect(await reportedExporter(withReceiver, spec({ OTEL_METRICS_EXPORTER: 'otlp', MODE: 'ci' }))).toBe('runtime:claude-code');
  }, 60_000);

  it('codex-cli: reported with a receiver, not without one, not for a shell: true script (it gets no -c overrides)', async () => {
    const command = writeCliStandIn(standIns, 'codex', CODEX_ARGV_ECHO);
    const withReceiver = new CodexCliRuntime({ telemetry: () => TARGET });
    expect(await reportedExporter(withReceiver, agent({ runtime: 'codex-cli', command }))).toBe('runtime:codex-cli');
    expect(await reportedExporter(new CodexCliRuntime(), agent({ runtime: 'codex-cli', command }))).toBeNull();
    const script = agent({ runtime: 'codex-cli', command: `${command} exec --json -- "$HIVEWATCH_PROMPT"`, shell: true });
    expect(await reportedExporter(withReceiver, script)).toBeNull();
    const ownAttributes = agent({ runtime: 'codex-cli', command, env: { OTEL_RESOURCE_ATTRIBUTES: 'team=a' } });
    expect(await reportedExporter(withReceiver, ownAttributes)).toBeNull();
  }, 60_000);
});
