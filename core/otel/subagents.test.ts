import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture } from '../../agents-real/fixtures-io.js';
import { CLI_PINS } from '../../agents-real/pins.js';
import { treeNodes } from '../service/agent-tree.js';
import { agentTree } from '../store/agent-tree.js';
import type { HivewatchStore } from '../store/contract.js';
import { openSqliteStore } from '../store/index.js';
import { SqliteContractStore } from '../store/sqlite-async.js';
import { decodeOtlp, type OtlpEncoding, type TelemetryRecord } from './decode.js';
import { OtelIngester } from './ingest.js';
import { claudeCodeLogs } from './testing.js';

/**
 * Subagents as child runs (docs/otel.md "Subagents"): against the real Claude Code's recording of
 * a session that started one subagent (agents-real/fixtures, Agent tool), and against records
 * written here, named as such, for what that recording does not show (nesting, a failing
 * subagent, Codex's spawned threads).
 */

const QUIET_MS = 60_000;
const T0 = Date.UTC(2026, 10, 29, 2, 0, 0);
let dir: string;
let store: HivewatchStore;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-subagents-'));
  store = new SqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
  now = T0 + 60 * 60_000;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The recording as a session sent from outside Hivewatch (without the preset's `hivewatch.*` resource). */
const unlinked = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({ ...r, resource: Object.fromEntries(Object.entries(r.resource).filter(([k]) => !k.startsWith('hivewatch.'))) }));

async function tree(runId: string) {
  const rows = await store.runStatements((d) => agentTree(d, runId));
  return treeNodes(rows, await store.usage({ kind: 'runs', runIds: rows.map((r) => r.runId) }));
}

async function runs() {
  return (await store.listRuns({ limit: 50 })).runs;
}

describe(`Claude Code ${CLI_PINS['claude-code'].version} as recorded: one subagent (Agent tool)`, () => {
  it("makes the subagent a child run, ended by subagent_completed, and splits the spend without counting a request twice", async () => {
    const f = readFixture('claude-code', 'subagent.json-out.otlp-json.default-retries');
    if (!f) throw new Error('no recording of the subagent scenario');
    now = Date.parse(f.run.recordedAt) + 10 * 60_000;
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    for (const e of f.exports) await ingester.ingest(unlinked(decodeOtlp(e.signal as 'logs' | 'traces', e.encoding as OtlpEncoding, e.payload)), `${f.run.id}#${e.seq}`);

    const all = await runs();
    expect(all).toHaveLength(2);
    const child = all.find((r) => r.flowName.includes('subagent'))!;
    const main = all.find((r) => r !== child)!;
    expect(child.flowName).toBe('general-purpose subagent afbf5f61');
    // The subagent reported it finished: its run ended then, while its session is still open.
    expect(child.status).toBe('completed');
    expect(main.status).toBe('running');
    expect((await store.getRun(child.id))!.attempts.map((a) => a.status)).toEqual(['succeeded']);
    expect((await store.getRun(main.id))!.attempts.map((a) => a.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    now += QUIET_MS + 1;
    await ingester.sweep();
    const nodes = await tree(child.id);
    expect(nodes.map((n) => [n.runId, n.parentRunId, n.depth, n.agentId, n.agentName])).toEqual([
      [main.id, null, 0, null, null],
      [child.id, main.id, 1, 'afbf5f616572646e4', 'general-purpose'],
    ]);
    const [root, sub] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    expect([root.own?.inputTokens, root.own?.outputTokens, root.own?.costUsd]).toEqual([36, 27, expect.closeTo(0.000684, 9)]);
    expect([sub.own?.inputTokens, sub.own?.outputTokens, sub.own?.costUsd]).toEqual([12, 9, expect.closeTo(0.000228, 9)]);
    expect(root.subagents).toEqual(sub.total);

    // The CLI's own totals (its result: modelUsage over every model, total_cost_usd) include the subagent's:
    // the tree's total is exactly them, so the subagent's spend is neither left out nor counted twice.
    const result = JSON.parse(f.stdout.trim().split('\n').filter((l) => l.includes('"total_cost_usd"'))[0]!) as {
      total_cost_usd: number; modelUsage: Record<string, { inputTokens: number; outputTokens: number }>;
    };
    const model = Object.values(result.modelUsage)[0]!;
    expect([root.total?.inputTokens, root.total?.outputTokens]).toEqual([model.inputTokens, model.outputTokens]);
    expect(root.total?.costUsd).toBeCloseTo(result.total_cost_usd, 9);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});

/** Records written here after the recording's attribute names and values (Claude Code 2.1.332). */
function request(prompt: string, agent: Record<string, string>, cost: string): [string, Record<string, string>] {
  return ['api_request', { 'prompt.id': prompt, model: 'claude-opus-5-5', input_tokens: '100', output_tokens: '10', cost_usd: cost, duration_ms: '20', ...agent }];
}

describe('nested subagents (hand-written records, after the recording)', () => {
  it('nests to depth 2 by parent_agent_id; a failing subagent fails its own run only; spend rolls up once per level', async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const a = { agent_id: 'agent-a', 'agent.name': 'Explore', query_source: 'agent:builtin:Explore' };
    const b = { agent_id: 'agent-b', parent_agent_id: 'agent-a', query_source: 'agent:builtin:general-purpose' };
    const records = claudeCodeLogs([
      ['user_prompt', { 'prompt.id': 'p1' }],
      request('p1', {}, '0.5'),
      request('p1', a, '0.25'),
      request('p1', b, '0.125'),
      ['api_error', { 'prompt.id': 'p1', ...b, status_code: '500', error: 'Internal server error', duration_ms: '5', attempt: '1' }],
      ['subagent_completed', { 'prompt.id': 'p1', agent_id: 'agent-b', agent_type: 'general-purpose' }],
      ['subagent_completed', { 'prompt.id': 'p1', agent_id: 'agent-a', agent_type: 'Explore' }],
      request('p1', {}, '0.5'),
    ], 'session-nested', T0);
    await ingester.ingest(records, 'nested');
    now += QUIET_MS + 1;
    await ingester.sweep();

    const all = await runs();
    expect(all).toHaveLength(3);
    const main = all.find((r) => r.flowName.startsWith('Claude Code session'))!;
    const nodes = await tree(main.id);
    expect(nodes.map((n) => [n.depth, n.agentId, n.name, n.status])).toEqual([
      [0, null, 'Claude Code session session-', 'completed'],
      [1, 'agent-a', 'Explore subagent agent-a', 'completed'],
      [2, 'agent-b', 'general-purpose subagent agent-b', 'failed'],
    ]);
    const [root, first, second] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    expect(second.errorCount).toBe(1);
    expect((await store.getRun(second.runId))!.run.endingCode).toBe('RUNTIME_PROVIDER_ERROR');
    // Each level: its own spend, and its subagents' (theirs included) apart; every request counted once.
    expect([root.own?.costUsd, root.subagents?.costUsd, root.total?.costUsd]).toEqual([1, 0.375, 1.375]);
    expect([first.own?.costUsd, first.subagents?.costUsd, first.total?.costUsd]).toEqual([0.25, 0.125, 0.375]);
    expect([second.own?.costUsd, second.subagents, second.total?.costUsd]).toEqual([0.125, null, 0.125]);
    expect([root.own?.attempts, first.own?.attempts, second.own?.attempts]).toEqual([2, 1, 1]);
    expect(root.total?.inputTokens).toBe(400);
    // The tree reads the same from any of its runs.
    expect((await tree(second.runId)).map((n) => n.runId)).toEqual(nodes.map((n) => n.runId));
  });

  it('a subagent that names itself as its parent, or its session, is a child of the session, never its own', async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    await ingester.ingest(claudeCodeLogs([
      request('p1', {}, '0.5'),
      request('p1', { agent_id: 'loop', parent_agent_id: 'loop' }, '0.25'),
    ], 'session-loop', T0), 'loop');
    const all = await runs();
    const main = all.find((r) => r.flowName.startsWith('Claude Code session'))!;
    expect((await tree(main.id)).map((n) => [n.depth, n.agentId])).toEqual([[0, null], [1, 'loop']]);
  });
});

/** Codex records as its log exporter sends them (conversation.id per thread), with a spawned thread's session_source (hand-written). */
function codexLogs(records: readonly Record<string, string>[], t0: number): TelemetryRecord[] {
  const logRecords = records.map((attributes, i) => ({
    timeUnixNano: `${(t0 + (i + 1) * 1000) * 1_000_000}`,
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } })),
  }));
  const body = { resourceLogs: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex_exec' } }] }, scopeLogs: [{ logRecords }] }] };
  return decodeOtlp('logs', 'json', Buffer.from(JSON.stringify(body)));
}

describe('Codex subagent threads (hand-written records)', () => {
  it("a thread whose session_source names a parent thread is that thread's child run", async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const parent = '01a22528-990a-74d3-a099-3499fd52c606';
    const child = '01a22529-0000-7000-8000-00000000c0de';
    await ingester.ingest(codexLogs([
      { 'event.name': 'codex.conversation_starts', 'conversation.id': parent },
      { 'event.name': 'codex.conversation_starts', 'conversation.id': child, session_source: `subagent_thread_spawn_${parent}_depth_1` },
      { 'event.name': 'codex.user_prompt', 'conversation.id': child },
    ], T0), 'codex');
    const all = await runs();
    expect(all).toHaveLength(2);
    const parentRun = all.find((r) => r.flowName.startsWith('Codex CLI session'))!;
    const nodes = await tree(parentRun.id);
    expect(nodes.map((n) => [n.depth, n.agentId, n.name])).toEqual([[0, null, parentRun.flowName], [1, child, 'Codex CLI subagent 01a22529']]);
  });
});
