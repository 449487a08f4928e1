import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PERMISSION_HOOK_HOLD_S } from '../../../agents-real/cli/claude.js';
import { readFixture } from '../../../agents-real/recording/fixtures-io.js';
import { CLI_PINS } from '../../../agents-real/pins.js';
import { APPROVAL_ENDED, APPROVAL_REQUESTED } from '../../base/approval-wait.js';
import type { EventOf, HivewatchEvent } from '../../base/events.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { approvalSignalOf } from './approval-facts.js';
import { BLOCKED_ON_USER_SPAN } from './approval-spans.js';
import { decodeOtlp, type TelemetryRecord } from '../receive/decode.js';
import { OtelIngester } from '../receive/ingest.js';
import { APPROVAL_HOLD_MS } from './session-approval.js';
import { eventName } from '../mapping.js';
import { claudeCodeLogs } from '../testing.js';

/**
 * Waiting for approval from the telemetry (docs/otel.md "Waiting for approval"), through the
 * ingester into a real SQLite store: Claude Code 2.1.332's recordings — a PermissionRequest hook
 * that held the prompt, then denied it (pending, then decided by the hook), and the configuration's
 * decisions — and, named so in their titles, the recorded refusal shifted in time or left open
 * and hand-written records for what print mode cannot produce (a person's decision, a prompt
 * never answered, Codex asking a person): the run's open prompt, the time it waited (counted
 * once), the `waiting-approval` filter, and a pending prompt keeping its session open past the
 * quiet period.
 */

const tempDir = tempDirs();
const stores: HivewatchStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const MINUTE = 60_000;
type External = HivewatchEvent & EventOf<'externalEvent'>;
const named = (events: HivewatchEvent[], name: string): External[] => events.filter((e): e is External => e.type === 'externalEvent' && e.name === name);

/** A recorded run's telemetry, one list per export in arrival order, as an unlinked session (its Hivewatch attempt attributes dropped). */
function recordedExports(run: string): TelemetryRecord[][] {
  const f = readFixture('claude-code', run);
  if (!f) throw new Error(`no recording ${run}`);
  const unlinked = (attrs: TelemetryRecord['resource']) => Object.fromEntries(Object.entries(attrs).filter(([key]) => !key.startsWith('hivewatch.')));
  return f.exports
    .map((e) => ((e.signal === 'logs' || e.signal === 'traces') && e.encoding !== 'other' ? decodeOtlp(e.signal, e.encoding, e.payload) : []))
    .map((records) => records.map((r) => ({ ...r, resource: unlinked(r.resource), attributes: unlinked(r.attributes) })));
}

const recorded = (run: string): TelemetryRecord[] => recordedExports(run).flat();

/** The recorded refusal with a person deciding after `delayMs` (`source`), instead of the configuration at once. */
function decidedByPerson(delayMs: number, source: string, open = false): TelemetryRecord[] {
  const span = recorded('refused.json-out.otlp-json.default-retries').find((r) => r.name === BLOCKED_ON_USER_SPAN)!;
  const start = span.interval!.startMs;
  return recorded('refused.json-out.otlp-json.default-retries').map((r) => {
    if (r.name === BLOCKED_ON_USER_SPAN) {
      const endMs = open ? null : (r.interval!.endMs as number) + delayMs;
      return { ...r, interval: { startMs: start, endMs }, attributes: { ...r.attributes, source } };
    }
    const later = r.timeMs > start ? { timeMs: r.timeMs + delayMs } : {};
    return eventName(r) === 'claude_code.tool_decision' ? { ...r, ...later, attributes: { ...r.attributes, source } } : { ...r, ...later };
  });
}

async function ingested(
  records: TelemetryRecord[],
  now: number,
): Promise<{ store: HivewatchStore; ingester: OtelIngester; runId: string; clock: { now: number } }> {
  const store = await openStore({ path: join(tempDir('hw-approval-'), 'hw.db') });
  stores.push(store);
  const clock = { now };
  const ingester = new OtelIngester(store, { now: () => clock.now, quietMs: 2 * MINUTE });
  const runIds = (await ingester.ingest(records, null)).runIds;
  expect(runIds).toHaveLength(1);
  return { store, ingester, runId: runIds[0]!, clock };
}

describe('the recorded blocked-on-user span', () => {
  it('reads as a decision with its wait: start, end, decision, who decided, and the tool of its parent span', () => {
    const span = recorded('refused.json-out.otlp-json.default-retries').find((r) => r.name === BLOCKED_ON_USER_SPAN)!;
    expect(span.interval).toEqual({ startMs: 1795920285419, endMs: 1795920285812 });
    expect(approvalSignalOf(span.name, span, span.timeMs)).toEqual({
      kind: 'decided',
      tool: 'Bash',
      label: 'Bash(rm …)',
      since: 1795920285419,
      at: 1795920285812,
      decision: 'reject',
      source: 'config',
    });
    const accepted = recorded('tool.json-out.otlp-json.default-retries').find((r) => r.name === BLOCKED_ON_USER_SPAN)!;
    expect(approvalSignalOf(accepted.name, accepted, accepted.timeMs)).toMatchObject({
      kind: 'decided',
      label: 'Bash(echo …)',
      decision: 'accept',
      source: 'config',
    });
  });

  it('decided by the configuration, as recorded, is no wait on a person', async () => {
    for (const run of ['refused.json-out.otlp-json.default-retries', 'tool.json-out.otlp-json.default-retries']) {
      const { store, runId } = await ingested(recorded(run), Date.UTC(2026, 10, 29, 3, 0, 0));
      const events = await store.getEvents(runId);
      expect(named(events, APPROVAL_REQUESTED).length + named(events, APPROVAL_ENDED).length).toBe(0);
      expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: null, approvalLabel: null, approvalWaitMs: 0 });
    }
  });

  it("a person's decision 12 minutes later is 12 minutes waited, counted once though the span and the log both report it (the recorded refusal shifted in time: print mode has no person to decide)", async () => {
    const { store, runId } = await ingested(decidedByPerson(12 * MINUTE, 'user_temporary'), Date.UTC(2026, 10, 29, 3, 0, 0));
    const ended = named(await store.getEvents(runId), APPROVAL_ENDED);
    expect(ended.map((e) => [e.attributes.label, e.attributes.waitedMs, e.attributes.source])).toEqual([['Bash(rm …)', 12 * MINUTE + 393, 'user_temporary']]);
    expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: null, approvalWaitMs: 12 * MINUTE + 393 });
    expect(await store.replayRun(runId)).toMatchObject({ ok: true, diffs: [] });
  });
});

const HOOK_RUN = 'permission-hook-denies.json-out.otlp-json.default-retries';

describe(`Claude Code ${CLI_PINS['claude-code'].version} as recorded: a PermissionRequest hook holds the prompt ${PERMISSION_HOOK_HOLD_S} s, then denies it`, () => {
  it("pending from the export sent while the hook held it (listed under waiting-approval, open past the quiet period); the hook's denial ends it with its source and the time waited, counted once", async () => {
    const exports = recordedExports(HOOK_RUN);
    const [held, ...rest] = exports as [TelemetryRecord[], ...TelemetryRecord[][]];
    const start = held.find((r) => eventName(r) === 'claude_code.hook_execution_start')!;
    expect(start.attributes).toMatchObject({ hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash' });
    // The periodic log export (every 5 s) went out while the hook held the prompt: the decision is in none of it.
    expect(held.some((r) => eventName(r) === 'claude_code.tool_decision' || r.name === BLOCKED_ON_USER_SPAN)).toBe(false);
    const { store, ingester, runId, clock } = await ingested(held, start.timeMs + 1000);
    expect(await store.getRunRow(runId)).toMatchObject({ status: 'running', approvalSince: start.timeMs, approvalLabel: 'Bash', approvalWaitMs: 0 });
    expect((await store.listRuns({ status: ['waiting-approval'] })).runs.map((r) => r.id)).toEqual([runId]);
    // Past the 2-minute quiet period with the prompt still open: the session waits on, it does not end.
    clock.now = start.timeMs + 10 * MINUTE;
    expect(await ingester.sweep()).toEqual([]);
    expect(await store.getRunRow(runId)).toMatchObject({ status: 'running', approvalSince: start.timeMs });

    // The rest arrives: the blocked-on-user span (decision reject, source hook) and the log's tool_decision.
    const after = rest.flat();
    const span = after.find((r) => r.name === BLOCKED_ON_USER_SPAN)!;
    expect(span.attributes).toMatchObject({ decision: 'reject', source: 'hook' });
    const decision = after.find((r) => eventName(r) === 'claude_code.tool_decision')!;
    expect(decision.attributes).toMatchObject({ decision: 'reject', source: 'hook', tool_name: 'Bash' });
    for (const records of rest) await ingester.ingest(records, null);
    const waited = span.interval!.endMs! - start.timeMs;
    expect(waited).toBeGreaterThanOrEqual(PERMISSION_HOOK_HOLD_S * 1000);
    expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: null, approvalLabel: null, approvalWaitMs: waited });
    expect((await store.listRuns({ status: ['waiting-approval'] })).runs).toEqual([]);
    const events = await store.getEvents(runId);
    expect(named(events, APPROVAL_REQUESTED).map((e) => [e.attributes.tool, e.attributes.via])).toEqual([['Bash', 'claude_code.hook_execution_start']]);
    expect(named(events, APPROVAL_ENDED).map((e) => [e.attributes.decision, e.attributes.source, e.attributes.waitedMs])).toEqual([['reject', 'hook', waited]]);
    expect(await store.replayRun(runId)).toMatchObject({ ok: true, diffs: [] });
  });
});

describe('a prompt left pending', () => {
  const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);

  it("an open span makes the run wait for approval; a person's later decision ends it with the time waited (the recorded refusal with its span left open: the CLI exports a span only once it ends)", async () => {
    const records = decidedByPerson(0, 'user_reject', true);
    const span = records.find((r) => r.name === BLOCKED_ON_USER_SPAN)!;
    const start = span.interval!.startMs;
    const beforeDecision = records.filter((r) => r.name === BLOCKED_ON_USER_SPAN || r.timeMs <= start);
    const { store, ingester, runId, clock } = await ingested(beforeDecision, start + 1000);
    expect(await store.getRunRow(runId)).toMatchObject({ status: 'running', approvalSince: start, approvalLabel: 'Bash(rm …)', approvalWaitMs: 0 });
    expect((await store.listRuns({ status: ['waiting-approval'] })).runs.map((r) => r.id)).toEqual([runId]);
    expect((await store.countRuns({})).byStatus['waiting-approval']).toBe(1);

    // 40 minutes on, well past the 2-minute quiet period: the session is still open, waiting.
    clock.now = start + 40 * MINUTE;
    expect(await ingester.sweep()).toEqual([]);
    expect(await store.getRunRow(runId)).toMatchObject({ status: 'running', approvalSince: start });

    const decision = records.find((r) => eventName(r) === 'claude_code.tool_decision')!;
    await ingester.ingest([{ ...decision, timeMs: start + 40 * MINUTE }], null);
    expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: null, approvalLabel: null, approvalWaitMs: 40 * MINUTE });
    expect((await store.listRuns({ status: ['waiting-approval'] })).runs).toEqual([]);
    const ended = named(await store.getEvents(runId), APPROVAL_ENDED);
    expect(ended.map((e) => [e.attributes.decision, e.attributes.source, e.attributes.via])).toEqual([['reject', 'user_reject', 'claude_code.tool_decision']]);
  });

  it("a prompt opened by a PermissionRequest hook that no decision closes: the agent going on ends it; the session's end ends one never answered (hand-written: the recorded hook always decides, and a 24-hour hold is not recorded)", async () => {
    const session = 'aa9e1c55-6d2a-4f0e-8b7c-9a1d2e3f4a5b';
    const opened = claudeCodeLogs(
      [
        ['user_prompt', { 'prompt.id': 'p-1' }],
        ['hook_execution_start', { 'prompt.id': 'p-1', hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Bash', num_hooks: '1' }],
      ],
      session,
      T0,
    );
    const { store, ingester, runId, clock } = await ingested(opened, T0 + 3000);
    expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: T0 + 2000, approvalLabel: 'Bash' });
    // Five minutes later the tool's result comes without a decision event: the prompt was answered.
    await ingester.ingest(claudeCodeLogs([['tool_result', { 'prompt.id': 'p-1', tool_name: 'Bash', success: 'true' }]], session, T0 + 5 * MINUTE), null);
    expect(await store.getRunRow(runId)).toMatchObject({ approvalSince: null, approvalWaitMs: 5 * MINUTE - 1000 });

    // A second prompt nobody answers: the hold (24 h) passes, the session ends and the wait with it.
    await ingester.ingest(
      claudeCodeLogs(
        [['hook_execution_start', { 'prompt.id': 'p-1', hook_event: 'PermissionRequest', hook_name: 'PermissionRequest:Write' }]],
        session,
        T0 + 10 * MINUTE,
      ),
      null,
    );
    clock.now = T0 + 10 * MINUTE + 1000 + APPROVAL_HOLD_MS - 1;
    expect(await ingester.sweep()).toEqual([]);
    clock.now = T0 + 10 * MINUTE + 1000 + APPROVAL_HOLD_MS + 1;
    expect(await ingester.sweep()).toEqual([runId]);
    const row = await store.getRunRow(runId);
    expect(row?.status).not.toBe('running');
    expect(row).toMatchObject({ approvalSince: null, approvalWaitMs: 5 * MINUTE - 1000 + (clock.now - (T0 + 10 * MINUTE + 1000)) });
    expect(named(await store.getEvents(runId), APPROVAL_ENDED).at(-1)?.attributes.via).toBe('hivewatch.session_ended');
  });

  it("Codex's decision by a person counts from the session's last record before it (hand-written: codex exec never asks a person)", async () => {
    const codex = (records: [string, Record<string, string>, number][]): TelemetryRecord[] =>
      decodeOtlp(
        'logs',
        'json',
        Buffer.from(
          JSON.stringify({
            resourceLogs: [
              {
                resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex_exec' } }] },
                scopeLogs: [
                  {
                    scope: { name: 'codex_otel' },
                    logRecords: records.map(([name, attrs, at]) => ({
                      timeUnixNano: `${at * 1_000_000}`,
                      attributes: Object.entries({ 'event.name': name, 'conversation.id': 'c0de1c55-6d2a-4f0e-8b7c-9a1d2e3f4a5b', ...attrs }).map(
                        ([key, value]) => ({ key, value: { stringValue: value } }),
                      ),
                    })),
                  },
                ],
              },
            ],
          }),
        ),
      );
    const { store, runId } = await ingested(
      codex([
        ['codex.user_prompt', {}, T0],
        ['codex.api_request', { 'http.response.status_code': '200', duration_ms: '400' }, T0 + 1000],
        ['codex.tool_decision', { tool_name: 'shell', call_id: 'call_1', decision: 'denied', source: 'User' }, T0 + 1000 + 7 * MINUTE],
        ['codex.tool_decision', { tool_name: 'shell', call_id: 'call_2', decision: 'approved', source: 'Config' }, T0 + 2000 + 7 * MINUTE],
      ]),
      T0 + 8 * MINUTE,
    );
    expect(named(await store.getEvents(runId), APPROVAL_ENDED).map((e) => [e.attributes.tool, e.attributes.decision, e.attributes.waitedMs])).toEqual([
      ['shell', 'denied', 7 * MINUTE],
    ]);
    expect((await store.getRunRow(runId))?.approvalWaitMs).toBe(7 * MINUTE);
  });
});
