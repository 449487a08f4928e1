import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventOf } from '../../base/events.js';
import { openSqliteStore, openStore, type HivewatchStore, type SqliteStore } from '../../store/index.js';
import { sqliteContractStore } from '../../store/sqlite/async-store.js';
import { decodeOtlp, type TelemetryRecord } from './decode.js';
import { DEFAULT_QUIET_MS, OtelIngester, STORE_PROMPTS_SETTING } from './ingest.js';
import { fixture } from '../testing.js';

let dir: string;
let store: HivewatchStore;
/** The same database's SQLite engine (to plant a conflicting journal row). */
let sqlite: SqliteStore;
let now: number;
const T0 = 1763900000000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-'));
  sqlite = openSqliteStore({ path: join(dir, 'hw.db') });
  store = sqliteContractStore(sqlite);
  now = T0 + 200_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingester = (): OtelIngester => new OtelIngester(store, { now: () => now });
const logs = (name: string, encoding: 'json' | 'protobuf' = 'json'): TelemetryRecord[] => decodeOtlp('logs', encoding, fixture(name, encoding));
const counts = async (by: 'code' | 'origin' | 'category'): Promise<Record<string, number>> =>
  Object.fromEntries((await store.errorCounts({ by })).map((c) => [c.key, c.count]));
const externalRuns = async () => (await store.listRuns({ limit: 50 })).runs.filter((r) => r.flow.startsWith('external:'));

describe('OtelIngester: documented Claude Code events', () => {
  it.each(['json', 'protobuf'] as const)(
    'a session (%s) becomes an external run: prompts are tasks, API calls attempts, errors classified',
    async (encoding) => {
      const result = await ingester().ingest(logs('claude-code-logs', encoding), 'digest-1');
      expect(result).toMatchObject({ records: 11, duplicate: false });
      const [run] = await externalRuns();
      expect(run).toMatchObject({ flow: 'external:claude-code', flowName: 'Claude Code session 7f3c9a2e', status: 'running', taskCount: 2, attemptCount: 5 });
      const detail = (await store.getRun(run!.id))!;
      expect(detail.tasks.map((t) => [t.taskId, t.status, t.attempts])).toEqual([
        ['prompt-1-p-1', 'succeeded', 3],
        ['prompt-2-p-2', 'running', 2],
      ]);
      expect(detail.attempts.map((a) => [a.taskId, a.attempt, a.status, a.errorCode])).toEqual([
        ['prompt-1-p-1', 1, 'failed', 'RUNTIME_RATE_LIMIT'],
        ['prompt-1-p-1', 2, 'failed', 'RUNTIME_PROVIDER_ERROR'],
        ['prompt-1-p-1', 3, 'succeeded', null],
        ['prompt-2-p-2', 1, 'failed', 'RUNTIME_TIMEOUT'],
        ['prompt-2-p-2', 2, 'failed', 'USER_INVALID_CONFIG'],
      ]);
      expect(await counts('code')).toEqual({
        RUNTIME_RATE_LIMIT: 1,
        RUNTIME_PROVIDER_ERROR: 1,
        RUNTIME_TIMEOUT: 1,
        USER_INVALID_CONFIG: 1,
        AGENT_TOOL_FAILED: 1,
      });
      expect(await counts('origin')).toEqual({ 'runtime:claude-code': 3, user: 1, 'agent:claude-code': 1 });
      expect(await counts('category')).toEqual({ runtime: 3, user: 1, agent: 1 });
      const groups = await store.errorGroups();
      expect(groups).toHaveLength(5);
      expect(groups.find((g) => g.code === 'AGENT_TOOL_FAILED')).toMatchObject({ origin: 'agent:claude-code', count: 1 });

      const errors = (await store.listErrors({ limit: 10 })).errors;
      const overloaded = errors.find((e) => e.code === 'RUNTIME_RATE_LIMIT')!;
      expect(overloaded.message).toBe('claude-code: the API is rate limited or overloaded (HTTP 529): Overloaded');
      expect(overloaded.context).toMatchObject({
        session: '7f3c9a2e-1b4d-4e8a-9c6f-2d5e8b1a0c33',
        prompt: 'p-1',
        model: 'claude-sonnet-4-5',
        reportedAttempt: 1,
        statusCode: 529,
      });
      expect(errors.find((e) => e.code === 'AGENT_TOOL_FAILED')!.message).toBe('claude-code: tool Bash failed: Exit code 1: npm test failed');

      const kept = (await store.getEvents(run!.id)).filter((e): e is EventOf<'externalEvent'> => e.type === 'externalEvent');
      expect(kept.map((e) => [e.name, e.known])).toEqual([
        ['claude_code.user_prompt', true],
        ['claude_code.tool_decision', true],
        ['claude_code.tool_result', true],
        ['claude_code.user_prompt', true],
        ['claude_code.future_event', false],
      ]);
      // Prompt text is not stored unless the operator turns it on.
      expect(JSON.stringify(await store.getEvents(run!.id))).not.toContain('fix the flaky test');
      expect(await store.replayRun(run!.id)).toMatchObject({ ok: true, diffs: [] });
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    },
  );

  it('stores prompt text once the operator sets otel.store_prompts to on', async () => {
    await store.setSetting(STORE_PROMPTS_SETTING, 'on');
    await ingester().ingest(logs('claude-code-logs'), 'd');
    const [run] = await externalRuns();
    expect(JSON.stringify(await store.getEvents(run!.id))).toContain('fix the flaky test in io.ts');
  });
});

describe('OtelIngester: documented Codex events', () => {
  it('maps a Codex conversation: 429 rate limit, 502 provider error, stream timeout, failed tool', async () => {
    await ingester().ingest(logs('codex-cli-logs'), 'digest-c');
    const [run] = await externalRuns();
    expect(run).toMatchObject({ flow: 'external:codex-cli', flowName: 'Codex CLI session 0199a5e2', status: 'running', taskCount: 1, attemptCount: 4 });
    expect(await counts('code')).toEqual({ RUNTIME_RATE_LIMIT: 1, RUNTIME_PROVIDER_ERROR: 1, RUNTIME_TIMEOUT: 1, AGENT_TOOL_FAILED: 1 });
    expect(await counts('origin')).toEqual({ 'runtime:codex-cli': 3, 'agent:codex-cli': 1 });
  });

  it('maps the span events of a Codex trace payload the same way', async () => {
    await ingester().ingest(decodeOtlp('traces', 'protobuf', fixture('codex-cli-traces', 'protobuf')), 'digest-t');
    expect(await counts('code')).toEqual({ RUNTIME_PROVIDER_ERROR: 1 });
    const [run] = await externalRuns();
    const kept = (await store.getEvents(run!.id)).filter((e): e is EventOf<'externalEvent'> => e.type === 'externalEvent');
    expect(kept.map((e) => e.name)).toEqual(['codex.user_prompt', 'codex.turn_ttft']);
  });
});

describe('OtelIngester: idempotence and atomicity', () => {
  it('counts an exporter retry of the same payload once', async () => {
    const i = ingester();
    expect((await i.ingest(logs('claude-code-logs'), 'same')).duplicate).toBe(false);
    const events = (await store.stats()).events;
    expect((await i.ingest(logs('claude-code-logs'), 'same')).duplicate).toBe(true);
    expect((await store.stats()).events).toBe(events);
    expect((await store.errorCounts({ by: 'code' })).reduce((n, c) => n + c.count, 0)).toBe(5);
  });

  it('writes a payload whole or not at all', async () => {
    const records = [...logs('codex-cli-logs'), ...logs('claude-code-logs')];
    await ingester().ingest(logs('codex-cli-logs').slice(0, 1), 'probe');
    const claudeRunId = await (async () => {
      // The Claude session's run id, taken by a foreign journal row: its first event cannot be written.
      const probe = await openStore({ path: ':memory:' });
      await new OtelIngester(probe, { now: () => now }).ingest(logs('claude-code-logs'), null);
      const id = (await probe.listRuns()).runs[0]!.id;
      await probe.close();
      return id;
    })();
    sqlite.database.prepare("INSERT INTO events (run_id, seq, type, ts, payload) VALUES (?, 1, 'stepFinished', 0, '{}')").run(claudeRunId);
    const before = {
      events: (await store.stats()).events,
      errors: (await store.stats()).errors,
      attempts: (await store.getRun((await externalRuns())[0]!.id))!.attempts.length,
    };
    await expect(ingester().ingest(records, 'whole')).rejects.toThrow(/UNIQUE constraint failed/);
    expect({
      events: (await store.stats()).events,
      errors: (await store.stats()).errors,
      attempts: (await store.getRun((await externalRuns())[0]!.id))!.attempts.length,
    }).toEqual(before);
    sqlite.database.prepare('DELETE FROM events WHERE run_id = ?').run(claudeRunId);
    // The digest was not kept either: the exporter's retry goes through.
    expect((await ingester().ingest(records, 'whole')).duplicate).toBe(false);
    expect((await store.errorCounts({ by: 'code' })).reduce((n, c) => n + c.count, 0)).toBe(9);
  });
});

describe('OtelIngester: the quiet period', () => {
  it('ends a session after the quiet period and reopens it when events resume', async () => {
    const i = ingester();
    await i.ingest(logs('claude-code-logs'), 'a');
    const runId = (await externalRuns())[0]!.id;
    now += DEFAULT_QUIET_MS - 1;
    expect(await i.sweep()).toEqual([]);
    expect((await store.getRun(runId))!.run.status).toBe('running');
    now += 2;
    expect(await i.sweep()).toEqual([runId]);
    const ended = (await store.getRun(runId))!;
    // Its last prompt's last request failed (401) and nothing succeeded after it: the session failed, with that failure.
    expect(ended.run).toMatchObject({ status: 'failed', endingCode: 'USER_INVALID_CONFIG', endingTaskId: 'prompt-2-p-2', endingAttempt: 2 });
    expect(ended.tasks.map((t) => t.status)).toEqual(['succeeded', 'failed']);
    expect((await store.getEvents(runId)).at(-1)).toMatchObject({
      type: 'externalRunIdle',
      quietMs: DEFAULT_QUIET_MS,
      lastEventAt: T0 + 200_000,
      error: { code: 'USER_INVALID_CONFIG' },
    });
    const dispositions = (await store.listErrors({ limit: 10 })).errors.map((e) => [e.code, e.disposition]);
    expect(dispositions).toContainEqual(['USER_INVALID_CONFIG', 'unhandled']);
    expect(dispositions.filter(([, d]) => d === 'unhandled')).toHaveLength(1);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
    expect(await i.sweep()).toEqual([]);

    now += 60_000;
    await i.ingest(logs('claude-code-logs').slice(1, 2), 'b');
    const reopened = (await store.getRun(runId))!;
    expect(reopened.run).toMatchObject({ status: 'running', endedAt: null });
    expect((await store.getEvents(runId)).map((e) => e.type).slice(-5)).toEqual([
      'externalRunReopened',
      'taskStarted',
      'attemptStarted',
      'errorOccurred',
      'attemptFailed',
    ]);
    expect(reopened.tasks.at(-1)).toMatchObject({ taskId: 'prompt-3-p-1', status: 'running', attempts: 1 });
    expect(await store.replayRun(runId)).toMatchObject({ ok: true });
  });

  it('is not interrupted by start-up recovery: it has no host to lose', async () => {
    await ingester().ingest(logs('codex-cli-logs'), 'c');
    await store.close();
    store = await openStore({ path: join(dir, 'hw.db') });
    expect(store.recovered).toEqual([]);
    expect((await externalRuns())[0]).toMatchObject({ status: 'running' });
    await store.recoverInterrupted({ force: true });
    expect((await externalRuns())[0]).toMatchObject({ status: 'running' });
  });
});

describe('OtelIngester: telemetry of an attempt Hivewatch ran', () => {
  it('links the session to the attempt named by the hivewatch.* resource attributes', async () => {
    const records = logs('claude-code-logs').map((r) => ({
      ...r,
      resource: { ...r.resource, 'hivewatch.run_id': 'run-42', 'hivewatch.task_id': 'fix', 'hivewatch.attempt': '2' },
    }));
    await ingester().ingest(records, 'p5');
    const [run] = await externalRuns();
    expect(await store.attemptTelemetry('run-42')).toEqual([
      { taskId: 'fix', attempt: 2, runId: run!.id, sessionId: '7f3c9a2e-1b4d-4e8a-9c6f-2d5e8b1a0c33', origin: 'runtime:claude-code' },
    ]);
    // Its API errors are the attempt's failed calls (linked-session.test.ts); the failed tool is an occurrence.
    const error = (await store.listErrors({ limit: 5 })).errors[0]!;
    expect(error).toMatchObject({ code: 'AGENT_TOOL_FAILED', context: { hivewatch: { runId: 'run-42', taskId: 'fix', attempt: 2 } } });
  });
});
