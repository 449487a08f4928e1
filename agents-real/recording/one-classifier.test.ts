import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeObservation } from '../../core/base/errors/classify.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../core/otel/receive/receiver.js';
import { readClaudeCodeOutput } from '../../core/runtimes/presets/claude-code.js';
import { readCodexCliOutput } from '../../core/runtimes/presets/codex-cli.js';
import type { AttemptResult } from '../../core/runtimes/runtime.js';
import { openSqliteStore } from '../../core/store/index.js';
import { sqliteContractStore } from '../../core/store/sqlite/async-store.js';
import { spawnLinks } from '../../core/store/queries/agent-tree.js';
import type { HivewatchStore } from '../../core/store/contract.js';
import { allFixtureRefs, fixtureLabel, readFixture, type LoadedFixture } from './fixtures-io.js';
import type { CliName } from '../pins.js';

/**
 * One classifier, two paths: every recorded run of the real CLIs, of the
 * pinned versions and of the older pins kept (fixtures/<cli>/<run>/, fixtures/<cli>@<version>/<run>/), read as a preset reads it (its stdout, stderr and exit) and as the
 * OTLP receiver reads it (its recorded exports, posted to a real receiver over HTTP, then the
 * quiet period), and the same failure must get the same code both ways.
 */

/** What each scenario's failure is, whichever way it arrives (null: the run succeeded). */
const EXPECTED: Record<CliName, Record<string, string | null>> = {
  'claude-code': {
    text: null,
    tool: null,
    'rate-limit-then-ok': null,
    subagent: null,
    refused: 'AGENT_SCOPE_VIOLATION',
    // A failing subagent fails its own run, never its session's (docs/otel.md "Subagents").
    'subagent-fails': null,
    'subagent-nested': null,
    'permission-hook-denies': 'AGENT_SCOPE_VIOLATION',
    'rate-limit': 'RUNTIME_RATE_LIMIT',
    overloaded: 'RUNTIME_RATE_LIMIT',
    'usage-limit': 'RUNTIME_RATE_LIMIT',
    'usage-limit-next-day': 'RUNTIME_RATE_LIMIT',
    'stream-error': 'RUNTIME_RATE_LIMIT',
    'server-error': 'RUNTIME_PROVIDER_ERROR',
    unauthorized: 'USER_INVALID_CONFIG',
    forbidden: 'USER_INVALID_CONFIG',
    hang: 'RUNTIME_TIMEOUT',
    stall: 'RUNTIME_TIMEOUT',
  },
  'codex-cli': {
    text: null,
    tool: null,
    'rate-limit-then-ok': null,
    // A spawned thread that answers: the agent exits 0 and neither reading finds a failure.
    subagent: null,
    'subagent-nested': null,
    refused: 'AGENT_SCOPE_VIOLATION',
    'rate-limit': 'RUNTIME_RATE_LIMIT',
    overloaded: 'RUNTIME_RATE_LIMIT',
    'usage-limit': 'RUNTIME_RATE_LIMIT',
    'usage-limit-next-day': 'RUNTIME_RATE_LIMIT',
    'server-error': 'RUNTIME_PROVIDER_ERROR',
    'stream-error': 'RUNTIME_PROVIDER_ERROR',
    unauthorized: 'USER_INVALID_CONFIG',
    forbidden: 'USER_INVALID_CONFIG',
    stall: 'RUNTIME_TIMEOUT',
    // The harness killed it (Codex bounds nothing about a request without an answer): no CLI output for a
    // preset to read; its telemetry shows a request in flight when the session went quiet.
    hang: 'RUNTIME_TIMEOUT',
  },
};

/**
 * Failures a linked session leaves to its attempt: a refused tool call is the attempt's result
 * (the preset reads it), so the session sent from inside it adds none (one-refusal.test.ts reads
 * the same records unlinked, where the session itself ends failed with it).
 */
const ATTEMPT_REPORTS_IT = new Set(['refused', 'permission-hook-denies']);

/** The subagent runs each scenario starts (Claude Code's Agent tool), ended as they reported. */
const SUBAGENTS: Record<CliName, Record<string, string[]>> = {
  'claude-code': {
    subagent: ['completed'],
    'subagent-fails': ['failed'],
    'subagent-nested': ['completed', 'completed', 'completed'],
  },
  // Codex's nested scenario is a chain: the agent spawns one thread, which spawns the next.
  'codex-cli': {
    subagent: ['completed'],
    'subagent-nested': ['completed', 'completed'],
  },
};

/** The preset's reading: only runs printed in the preset's own format (Claude Code's JSON, Codex's --json). */
function presetReading(cli: CliName, f: LoadedFixture): AttemptResult | null {
  if (f.run.spec.output === 'plain' || (cli === 'codex-cli' && f.run.spec.scenario === 'hang')) return null;
  const observation: RuntimeObservation = {
    runtimeName: cli,
    exitCode: f.run.exitCode,
    signal: f.run.signal,
    timedOut: false,
    stdout: f.stdout,
    stderr: f.stderr,
    durationMs: f.run.durationMs,
  };
  const at = { now: Date.parse(f.run.recordedAt) + f.run.durationMs, timeZone: 'UTC', agentName: 'coder' };
  return cli === 'claude-code' ? readClaudeCodeOutput(observation, at) : readCodexCliOutput(observation, at);
}

const QUIET_MS = 60_000;
let dir: string;
let store: HivewatchStore;
let receiver: OtlpReceiver;
let now = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-one-classifier-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
  receiver = await startOtlpReceiver({ store, port: 0, token: 'one-classifier', sweepEveryMs: 0, quietMs: QUIET_MS, now: () => now });
});
afterAll(async () => {
  await receiver.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Posts a run's recorded exports to the receiver as the CLI sent them, ends its sessions, and returns the codes its runs ended with. */
async function telemetryReading(
  f: LoadedFixture,
): Promise<{ names: string[]; runs: number; endings: (string | null)[]; statuses: string[]; subagents: string[] }> {
  now = Date.parse(f.run.recordedAt) + 60 * 60_000;
  const before = new Set((await store.listRuns({ limit: 500 })).runs.map((r) => r.id));
  for (const e of f.exports) {
    const headers: Record<string, string> = { authorization: 'Bearer one-classifier', 'content-type': e.contentType };
    if (e.contentEncoding) headers['content-encoding'] = e.contentEncoding;
    const response = await fetch(`${receiver.endpoint}${e.path}`, { method: 'POST', headers, body: new Uint8Array(e.body) });
    expect(response.status, `${f.run.id} ${e.path} #${e.seq}: ${await response.text()}`).toBe(200);
  }
  now += QUIET_MS + 1;
  await receiver.ingester.sweep();
  const fresh = (await store.listRuns({ limit: 500 })).runs.filter((r) => !before.has(r.id));
  // A subagent's run is a child of its session's (docs/otel.md "Subagents"): the session is the run compared here.
  const children = new Set(
    (
      await store.runStatements((d) =>
        spawnLinks(
          d,
          fresh.map((r) => r.id),
        ),
      )
    ).parents.map((l) => l.runId),
  );
  const runs = fresh.filter((r) => !children.has(r.id));
  const subagents = fresh.filter((r) => children.has(r.id)).map((r) => r.status);
  const details = await Promise.all(runs.map(async (r) => (await store.getRun(r.id))!));
  // The recordings carry the hivewatch.* resource attributes a preset passes, so each session is linked to that
  // attempt: its failure is the code of its last call, and the session itself ends completed.
  const lastCall = (d: (typeof details)[number]): string | null => {
    const last = d.attempts.at(-1);
    return last?.status === 'failed' ? last.errorCode : null;
  };
  return { names: runs.map((r) => r.flowName), runs: runs.length, endings: details.map(lastCall), statuses: details.map((d) => d.run.status), subagents };
}

describe.each(['claude-code', 'codex-cli'] as const)('%s: the same failure gets the same code as a preset reads it and as its telemetry says it', (cli) => {
  it.each(allFixtureRefs(cli).map((ref) => [fixtureLabel(ref), ref] as const))('%s', async (_label, ref) => {
    const id = ref.id;
    const f = readFixture(cli, id, ref.version)!;
    const expected = EXPECTED[cli][f.run.spec.scenario];
    expect(expected, `no expectation for scenario ${f.run.spec.scenario}`).not.toBeUndefined();
    const preset = presetReading(cli, f);
    if (preset !== null) {
      expect(preset.kind === 'failed' ? preset.error.code : null, `preset: ${JSON.stringify(preset).slice(0, 300)}`).toBe(expected);
    }
    const telemetry = await telemetryReading(f);
    // Never a run of its own for a record that names no session (Codex's "flushing OTEL metrics").
    expect(telemetry.runs, JSON.stringify(telemetry)).toBeLessThanOrEqual(1);
    if (telemetry.runs === 0) return; // Nothing exported (Codex exits 1 without flushing: docs/otel.md).
    expect(telemetry.statuses).toEqual(['completed']);
    // The subagents the scenario starts are child runs of their own (one-classifier reads the session's ending).
    expect(telemetry.subagents).toEqual(SUBAGENTS[cli][f.run.spec.scenario] ?? []);
    if (expected === null || ATTEMPT_REPORTS_IT.has(f.run.spec.scenario)) {
      expect(telemetry.endings).toEqual([null]);
    } else if (telemetry.endings[0] !== 'RUNTIME_TIMEOUT' || expected === 'RUNTIME_TIMEOUT') {
      // A session whose failure was not exported before the CLI exited ends as a request in flight (RUNTIME_TIMEOUT).
      expect(telemetry.endings, `telemetry of ${id}`).toEqual([expected]);
    }
  });
});
