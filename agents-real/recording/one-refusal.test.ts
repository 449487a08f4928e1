import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RuntimeObservation } from '../../core/base/errors/classify.js';
import type { ErrorEnvelope } from '../../core/base/errors/envelope.js';
import { decodeOtlp, type TelemetryRecord } from '../../core/otel/receive/decode.js';
import { OtelIngester } from '../../core/otel/receive/ingest.js';
import { readClaudeCodeOutput } from '../../core/runtimes/presets/claude-code.js';
import { readCodexCliOutput } from '../../core/runtimes/presets/codex-cli.js';
import { openStore, type HivewatchStore } from '../../core/store/index.js';
import { tempDirs } from '../../core/testing/temp-dirs.js';
import { readFixture, type LoadedFixture } from './fixtures-io.js';
import type { CliName } from '../pins.js';
import { join } from 'node:path';

/**
 * One refusal, one code, whichever path reports it: the real CLIs' recorded runs in which the
 * agent asks for a command its permissions refuse (`refused.*`: Claude Code's Bash in print mode,
 * refused by its config, `tool_decision` {decision: reject} in its telemetry; Codex's command
 * asking for escalated permissions under `codex exec`'s approval policy never, a `tool_result`
 * whose output is the refusal). Read as the preset reads the CLI's output, and as the receiver
 * reads its telemetry sent from outside Hivewatch: AGENT_SCOPE_VIOLATION naming the tool both
 * ways (the one classifier, core/runtimes/provider-failure.ts). Sent from inside a preset's
 * attempt (as recorded: linked), the session adds no second occurrence of it.
 */

const REFUSED: Record<CliName, { tool: string; detail: string | null }> = {
  'claude-code': { tool: 'Bash', detail: 'rm -rf build' },
  'codex-cli': { tool: 'exec_command', detail: 'touch /etc/hivewatch-was-here' },
};
/** The refused call's id as each CLI recorded it (Claude Code's tool_use_id; Codex's call_id in its telemetry only). */
const CALL_ID = 'toolu_stub_0001';

const fixtureOf = (cli: CliName): LoadedFixture => readFixture(cli, 'refused.json-out.otlp-json.default-retries') as LoadedFixture;

function presetError(cli: CliName, f: LoadedFixture): ErrorEnvelope | null {
  const observation: RuntimeObservation = {
    runtimeName: cli,
    exitCode: f.run.exitCode,
    signal: f.run.signal,
    timedOut: false,
    stdout: f.stdout,
    stderr: f.stderr,
    durationMs: f.run.durationMs,
  };
  const at = { now: Date.parse(f.run.recordedAt), timeZone: 'UTC', agentName: 'coder' };
  const result = cli === 'claude-code' ? readClaudeCodeOutput(observation, at) : readCodexCliOutput(observation, at);
  return result.kind === 'failed' ? result.error.toEnvelope() : null;
}

/** The run's records as the receiver decodes them; `linked: false` drops the preset's hivewatch.* resource attributes. */
function records(f: LoadedFixture, linked: boolean): TelemetryRecord[] {
  const all = f.exports
    .filter((e) => e.signal === 'logs' || e.signal === 'traces')
    .flatMap((e) => decodeOtlp(e.signal as 'logs' | 'traces', e.encoding === 'json' ? 'json' : 'protobuf', e.payload));
  if (linked) return all;
  return all.map((r) => ({ ...r, resource: Object.fromEntries(Object.entries(r.resource).filter(([k]) => !k.startsWith('hivewatch.'))) }));
}

const tempDir = tempDirs();
let store: HivewatchStore;
let now = 0;
beforeEach(async () => {
  store = await openStore({ path: join(tempDir('hw-one-refusal-'), 'hw.db') });
});
afterEach(async () => {
  await store.close();
});

/** Ingests the records, ends the session by the quiet period, and returns its run's error occurrences and ending. */
async function telemetryErrors(f: LoadedFixture, linked: boolean): Promise<{ errors: ErrorEnvelope[]; status: string; ending: string | null }> {
  now = Date.parse(f.run.recordedAt) + 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: 60_000 });
  const { runIds } = await ingester.ingest(records(f, linked), null);
  now += 60_001;
  await ingester.sweep();
  const runId = runIds[0] as string;
  const events = await store.getEvents(runId);
  const errors = events.flatMap((e) => (e.type === 'errorOccurred' ? [e.error] : []));
  const row = (await store.getRunRow(runId))!;
  return { errors, status: row.status, ending: row.endingCode ?? null };
}

describe.each(['claude-code', 'codex-cli'] as const)('%s: a refused tool call is AGENT_SCOPE_VIOLATION whichever path reports it', (cli) => {
  const f = fixtureOf(cli);

  it('through the preset: AGENT_SCOPE_VIOLATION naming the tool', () => {
    const error = presetError(cli, f);
    expect(error).toMatchObject({ code: 'AGENT_SCOPE_VIOLATION', category: 'agent', recoverable: false, origin: 'agent:coder' });
    // Claude Code's result names the tool and its input; Codex's stdout nothing, its stderr the refusal (the rollout went with the run's home).
    expect(error?.context.denials).toEqual(cli === 'claude-code' ? [{ ...REFUSED[cli], toolUseId: CALL_ID }] : [{ tool: 'shell', detail: null }]);
  });

  it('through its telemetry, from outside Hivewatch: the same code naming the tool, and the session ends failed with it', async () => {
    const { errors, status, ending } = await telemetryErrors(f, false);
    expect(errors.map((e) => e.code)).toEqual(['AGENT_SCOPE_VIOLATION']);
    // Claude Code's tool_decision names the tool but not its input; Codex's tool_result both.
    const named = cli === 'claude-code' ? { tool: REFUSED[cli].tool, detail: null, toolUseId: CALL_ID } : REFUSED[cli];
    expect(errors[0]).toMatchObject({ category: 'agent', recoverable: false, origin: `agent:${cli}`, context: { denials: [named] } });
    expect({ status, ending }).toEqual({ status: 'failed', ending: 'AGENT_SCOPE_VIOLATION' });
  });

  it('through its telemetry, linked to the attempt (as recorded): no second occurrence; the attempt reports it', async () => {
    const { errors, status } = await telemetryErrors(f, true);
    expect(errors).toEqual([]);
    expect(status).toBe('completed');
  });
});

describe('claude-code: the refusal and its decision', () => {
  const f = fixtureOf('claude-code');

  it("the preset's error names the call the journaled decision names: both paths give one answer", async () => {
    now = Date.parse(f.run.recordedAt) + 60_000;
    const { runIds } = await new OtelIngester(store, { now: () => now }).ingest(records(f, true), null);
    const decisions = (await store.getEvents(runIds[0] as string)).flatMap((e) =>
      e.type === 'externalEvent' && e.name === 'claude_code.tool_decision' ? [e.attributes] : [],
    );
    expect(decisions.map((d) => [d.decision, d.source, d.tool_use_id])).toEqual([['reject', 'config', CALL_ID]]);
    expect((presetError('claude-code', f)?.context.denials as { toolUseId?: string }[])[0]?.toolUseId).toBe(decisions[0]?.tool_use_id);
  });
});
