import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFixture, type LoadedFixture } from '../../agents-real/recording/fixtures-io.js';
import { CLI_PINS } from '../../agents-real/pins.js';
import { treeNodes } from '../service/telemetry/agent-tree.js';
import { agentTree } from '../store/queries/agent-tree.js';
import type { HivewatchStore } from '../store/contract.js';
import { openSqliteStore } from '../store/index.js';
import { sqliteContractStore } from '../store/sqlite/async-store.js';
import { decodeOtlp, type OtlpEncoding, type TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';
import { claudeCodeLogs } from './testing.js';

/**
 * Subagents as child runs (docs/otel.md "Subagents"): against the real Claude Code's recordings
 * (agents-real/fixtures, Agent tool) of a session that started one subagent, one whose subagent
 * failed, and three levels of subagents; and against records written here, named as such, for
 * what no recording shows (a self-parenting record, Codex's spawned threads).
 */

const QUIET_MS = 60_000;
const T0 = Date.UTC(2026, 10, 29, 2, 0, 0);
let dir: string;
let store: HivewatchStore;
let now: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hw-otel-subagents-'));
  store = sqliteContractStore(openSqliteStore({ path: join(dir, 'hw.db') }));
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
  it('makes the subagent a child run, ended by subagent_completed, and splits the spend without counting a request twice', async () => {
    const f = readFixture('claude-code', 'subagent.json-out.otlp-json.default-retries');
    if (!f) throw new Error('no recording of the subagent scenario');
    now = Date.parse(f.run.recordedAt) + 10 * 60_000;
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    for (const e of f.exports)
      await ingester.ingest(unlinked(decodeOtlp(e.signal as 'logs' | 'traces', e.encoding as OtlpEncoding, e.payload)), `${f.run.id}#${e.seq}`);

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
    const result = JSON.parse(
      f.stdout
        .trim()
        .split('\n')
        .filter((l) => l.includes('"total_cost_usd"'))[0]!,
    ) as {
      total_cost_usd: number;
      modelUsage: Record<string, { inputTokens: number; outputTokens: number }>;
    };
    const model = Object.values(result.modelUsage)[0]!;
    expect([root.total?.inputTokens, root.total?.outputTokens]).toEqual([model.inputTokens, model.outputTokens]);
    expect(root.total?.costUsd).toBeCloseTo(result.total_cost_usd, 9);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});

/** A recording's exports ingested in arrival order, the clock ten minutes after it was made. */
async function ingestRecording(run: string): Promise<{ f: LoadedFixture; ingester: OtelIngester }> {
  const f = readFixture('claude-code', run);
  if (!f) throw new Error(`no recording ${run}`);
  now = Date.parse(f.run.recordedAt) + 10 * 60_000;
  const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
  for (const e of f.exports)
    await ingester.ingest(unlinked(decodeOtlp(e.signal as 'logs' | 'traces', e.encoding as OtlpEncoding, e.payload)), `${f.run.id}#${e.seq}`);
  return { f, ingester };
}

/** The CLI's own totals: its last result's modelUsage (one model here) and total_cost_usd, which include every subagent's. */
function cliTotals(f: LoadedFixture): { inputTokens: number; outputTokens: number; costUsd: number } {
  const results = f.stdout
    .trim()
    .split('\n')
    .filter((l) => l.includes('"total_cost_usd"'));
  const result = JSON.parse(results.at(-1)!) as { total_cost_usd: number; modelUsage: Record<string, { inputTokens: number; outputTokens: number }> };
  const models = Object.values(result.modelUsage);
  expect(models).toHaveLength(1);
  return { inputTokens: models[0]!.inputTokens, outputTokens: models[0]!.outputTokens, costUsd: result.total_cost_usd };
}

describe(`Claude Code ${CLI_PINS['claude-code'].version} as recorded: a failing subagent, and three levels of subagents`, () => {
  it("a subagent whose request got a 500 fails its own run only (it never reports subagent_completed: the quiet period ends it); the session's spend is the CLI's total", async () => {
    const { f, ingester } = await ingestRecording('subagent-fails.json-out.otlp-json.retries-0');
    expect(f.run.cliVersion).toBe(CLI_PINS['claude-code'].version);
    const all = await runs();
    expect(all).toHaveLength(2);
    const main = all.find((r) => r.flowName.startsWith('Claude Code session'))!;
    // Until the quiet period passes the subagent's run is open: the CLI sent no subagent_completed for it.
    expect(all.map((r) => r.status)).toEqual(['running', 'running']);
    now += QUIET_MS + 1;
    await ingester.sweep();
    const nodes = await tree(main.id);
    expect(nodes.map((n) => [n.depth, n.agentName, n.status, n.errorCount])).toEqual([
      [0, null, 'completed', 0],
      [1, 'general-purpose', 'failed', 1],
    ]);
    const [root, sub] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const failed = (await store.getRun(sub.runId))!;
    expect(failed.run).toMatchObject({ endingCode: 'RUNTIME_PROVIDER_ERROR', lastErrorCode: 'RUNTIME_PROVIDER_ERROR' });
    expect(failed.attempts.map((a) => [a.status, a.errorCode])).toEqual([['failed', 'RUNTIME_PROVIDER_ERROR']]);
    // The failed request cost nothing: the session's three requests are all the spend, and the CLI's own total.
    expect(sub.own?.costUsd ?? 0).toBe(0);
    const cli = cliTotals(f);
    expect([root.total?.inputTokens, root.total?.outputTokens]).toEqual([cli.inputTokens, cli.outputTokens]);
    expect(root.total?.costUsd).toBeCloseTo(cli.costUsd, 9);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });

  it("nests by parent_agent_id to depth 3, each subagent ended by its subagent_completed; spend rolls up once per level to the CLI's total", async () => {
    const { f, ingester } = await ingestRecording('subagent-nested.json-out.otlp-json.default-retries');
    const all = await runs();
    expect(all).toHaveLength(4);
    const main = all.find((r) => r.flowName.startsWith('Claude Code session'))!;
    // Every subagent reported it finished; the session is open until its quiet period.
    expect(all.filter((r) => r !== main).map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    now += QUIET_MS + 1;
    await ingester.sweep();
    const nodes = await tree(main.id);
    expect(nodes.map((n) => [n.depth, n.agentName, n.status, n.errorCount, n.parentRunId])).toEqual([
      [0, null, 'completed', 0, null],
      [1, 'general-purpose', 'completed', 0, nodes[0]!.runId],
      [2, 'general-purpose', 'completed', 0, nodes[1]!.runId],
      [3, 'general-purpose', 'completed', 0, nodes[2]!.runId],
    ]);
    // Requests per agent: the session 3, the outer two subagents 2 each (their Agent call, then their answer), the innermost 1.
    expect(nodes.map((n) => n.own?.attempts)).toEqual([3, 2, 2, 1]);
    expect(nodes.map((n) => n.own?.inputTokens)).toEqual([36, 24, 24, 12]);
    const [root, outer, middle, inner] = nodes as [(typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0], (typeof nodes)[0]];
    // Each level: its own spend, and its subagents' (theirs included) apart; every request counted once.
    expect(inner.subagents).toBeNull();
    expect(middle.subagents).toEqual(inner.total);
    expect(outer.subagents).toEqual(middle.total);
    expect(root.subagents).toEqual(outer.total);
    expect(outer.total?.costUsd).toBeCloseTo(5 * 0.000228, 9);
    const cli = cliTotals(f);
    expect([root.total?.inputTokens, root.total?.outputTokens]).toEqual([cli.inputTokens, cli.outputTokens]);
    expect(root.total?.costUsd).toBeCloseTo(cli.costUsd, 9);
    // The tree reads the same from any of its runs.
    expect((await tree(inner.runId)).map((n) => n.runId)).toEqual(nodes.map((n) => n.runId));
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});

/** A record written here after the recordings' attribute names and values (Claude Code 2.1.332). */
function request(prompt: string, agent: Record<string, string>, cost: string): [string, Record<string, string>] {
  return [
    'api_request',
    { 'prompt.id': prompt, model: 'claude-opus-5-5', input_tokens: '100', output_tokens: '10', cost_usd: cost, duration_ms: '20', ...agent },
  ];
}

describe('a subagent naming itself as its parent (hand-written records: no CLI sends this)', () => {
  it('a subagent that names itself as its parent, or its session, is a child of the session, never its own', async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    await ingester.ingest(
      claudeCodeLogs([request('p1', {}, '0.5'), request('p1', { agent_id: 'loop', parent_agent_id: 'loop' }, '0.25')], 'session-loop', T0),
      'loop',
    );
    const all = await runs();
    const main = all.find((r) => r.flowName.startsWith('Claude Code session'))!;
    expect((await tree(main.id)).map((n) => [n.depth, n.agentId])).toEqual([
      [0, null],
      [1, 'loop'],
    ]);
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

// Codex 0.171.0 puts `session_source` on its metric points only (its recordings: codex-subagents.test.ts); a log
// record that carried it would link the same way.
describe('Codex subagent threads (hand-written records: a session_source on a log record, which no recording has)', () => {
  it("a thread whose session_source names a parent thread is that thread's child run", async () => {
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    const parent = '01a22528-990a-74d3-a099-3499fd52c606';
    const child = '01a22529-0000-7000-8000-00000000c0de';
    await ingester.ingest(
      codexLogs(
        [
          { 'event.name': 'codex.conversation_starts', 'conversation.id': parent },
          { 'event.name': 'codex.conversation_starts', 'conversation.id': child, session_source: `subagent_thread_spawn_${parent}_depth_1` },
          { 'event.name': 'codex.user_prompt', 'conversation.id': child },
        ],
        T0,
      ),
      'codex',
    );
    const all = await runs();
    expect(all).toHaveLength(2);
    const parentRun = all.find((r) => r.flowName.startsWith('Codex CLI session'))!;
    const nodes = await tree(parentRun.id);
    expect(nodes.map((n) => [n.depth, n.agentId, n.name])).toEqual([
      [0, null, parentRun.flowName],
      [1, child, 'subagent 01a22529…0000c0de · Codex CLI'],
    ]);
  });
});
