import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoadedFixture, readFixture } from '../../agents-real/recording/fixtures-io.js';
import { CLI_PINS } from '../../agents-real/pins.js';
import { treeNodes } from '../service/telemetry/agent-tree.js';
import { agentTree } from '../store/queries/agent-tree.js';
import type { HivewatchStore } from '../store/contract.js';
import { openStore } from '../store/open.js';
import { testEngines } from '../store/testing/engines.js';
import { decodeOtlp, type OtlpEncoding, type TelemetryRecord } from './receive/decode.js';
import { OtelIngester } from './receive/ingest.js';
import { readMetricPoints } from './metrics/codex.js';
import { decodeMetrics } from './metrics/decode.js';
import { sessionName, subagentName } from './session/session-name.js';
import { externalRunId } from './session/session-run-id.js';
import { codexSpawnOf } from './subagents.js';

/**
 * Codex's spawned threads as child runs (docs/otel.md "Subagents"), from the real Codex's
 * recording (agents-real/fixtures/codex-cli, scenario `subagent`: the agent calls spawn_agent,
 * then wait_agent; the spawned thread answers; then the agent does), on every store engine. The
 * spawn record may come before or after the spawned thread's first records (another export), and
 * the metrics export (at exit, or every 60 s) before or after both: the tree is the same.
 */

const RUN = 'subagent.json-out.otlp-json.default-retries';
/** The agent spawns a thread, which spawns one. */
const NESTED = 'subagent-nested.json-out.otlp-json.default-retries';
const QUIET_MS = 60_000;
const { engines, start, stop } = testEngines('codex-subagents');
beforeAll(start, 60_000);
afterAll(stop);

function recording(run = RUN): LoadedFixture {
  const f = readFixture('codex-cli', run);
  if (!f) throw new Error(`no recording codex-cli/${run}`);
  return f;
}

/** The recording as a session sent from outside Hivewatch (without the preset's `hivewatch.*` resource). */
const unlinked = (records: TelemetryRecord[]): TelemetryRecord[] =>
  records.map((r) => ({ ...r, resource: Object.fromEntries(Object.entries(r.resource).filter(([k]) => !k.startsWith('hivewatch.'))) }));

/** One export's records as the receiver journals them (a metrics export: the points it reads). */
function recordsOf(e: LoadedFixture['exports'][number]): TelemetryRecord[] {
  const encoding = e.encoding as OtlpEncoding;
  if (e.signal === 'metrics') return unlinked(readMetricPoints(decodeMetrics(encoding, e.payload)).records);
  return unlinked(decodeOtlp(e.signal as 'logs' | 'traces', encoding, e.payload));
}

/** The spawned and the spawning thread, from the recording's spawn record. */
function threads(f: LoadedFixture): { parent: string; child: string } {
  const spawn = f.exports
    .flatMap(recordsOf)
    .map(codexSpawnOf)
    .find((s) => s !== null);
  if (!spawn) throw new Error('the recording has no spawn record');
  return { parent: spawn.parentThreadId, child: spawn.childThreadId };
}

/**
 * The payloads in an order. `arrival`: as recorded (traces, metrics at exit, then logs), so the
 * spawned thread's run starts from its spans and the spawn record links it later. `spawn-first`:
 * the spawn record in an export of its own before everything, so the run starts linked.
 * `child-first`: every record of the spawned thread first, then the rest of the logs, the metrics last.
 * `reversed`: the exports in the reverse of their arrival (the logs, with the spawn records, first).
 */
type Order = 'arrival' | 'spawn-first' | 'child-first' | 'reversed';

function payloads(f: LoadedFixture, order: Order): TelemetryRecord[][] {
  const all = f.exports.map(recordsOf);
  if (order === 'arrival') return all;
  if (order === 'reversed') return [...all].reverse();
  const { child } = threads(f);
  const records = all.flat();
  const isSpawn = (r: TelemetryRecord): boolean => codexSpawnOf(r) !== null;
  const ofChild = (r: TelemetryRecord): boolean =>
    !isSpawn(r) && (r.attributes['conversation.id'] === child || r.spanAttributes?.['conversation.id'] === child);
  const metrics = (r: TelemetryRecord): boolean => r.signal === 'metrics';
  if (order === 'spawn-first') return [records.filter(isSpawn), records.filter((r) => !isSpawn(r))];
  return [records.filter(ofChild), records.filter((r) => !ofChild(r) && !metrics(r)), records.filter(metrics)];
}

const runIdOf = (sessionId: string): string => externalRunId({ agent: 'codex-cli', origin: 'runtime:codex-cli', sessionId });

describe.each(engines)(`Codex ${CLI_PINS['codex-cli'].version} as recorded, a spawned thread, on $name`, (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  async function ingested(order: Order, run = RUN) {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    const f = recording(run);
    const now = Date.parse(f.run.recordedAt) + 10 * 60_000;
    const ingester = new OtelIngester(store, { now: () => now, quietMs: QUIET_MS });
    for (const [i, records] of payloads(f, order).entries()) await ingester.ingest(records, `${order}#${i}`);
    const runs = (await store.listRuns({ limit: 50 })).runs;
    const tree = async (runId: string) => {
      const rows = await store.runStatements((d) => agentTree(d, runId));
      return treeNodes(rows, await store.usage({ kind: 'runs', runIds: rows.map((r) => r.runId) }));
    };
    return { f, store, runs, tree, ...(run === RUN ? threads(f) : { parent: '', child: '' }) };
  }

  it.each(['arrival', 'spawn-first', 'child-first'] as const)(
    'makes the spawned thread a child run of the thread that spawned it (%s order), its spend apart',
    async (order) => {
      const { f, store, runs, tree, parent, child } = await ingested(order);
      expect(f.run.cliVersion).toBe('0.171.0');
      // The thread the CLI printed is the one that spawned.
      expect(f.stdout).toContain(`"thread_id":"${parent}"`);
      expect(runs.map((r) => r.id).sort()).toEqual([runIdOf(parent), runIdOf(child)].sort());
      const parentRun = runs.find((r) => r.id === runIdOf(parent))!;
      const childRun = runs.find((r) => r.id === runIdOf(child))!;
      const linkedAtStart = order === 'spawn-first';
      // Linked at its start or later, the run is named a subagent.
      expect(childRun.flowName).toBe(subagentName('codex-cli', { runId: parentRun.id, agentId: child, agentName: null }));
      expect(childRun.flowName).not.toBe(sessionName('codex-cli', child));
      // The word subagent leads, so a Runs column cut at 900 px still tells it from a session.
      expect(childRun.flowName).toMatch(/^subagent [0-9a-f]{8}…[0-9a-f]{8} · Codex CLI$/);

      for (const from of [parentRun.id, childRun.id]) {
        const nodes = await tree(from);
        expect(nodes.map((n) => [n.runId, n.parentRunId, n.depth, n.agentId])).toEqual([
          [parentRun.id, null, 0, null],
          [childRun.id, parentRun.id, 1, child],
        ]);
      }
      const [root, sub] = (await tree(parentRun.id)) as [Awaited<ReturnType<typeof tree>>[0], Awaited<ReturnType<typeof tree>>[0]];
      // Codex printed the agent's own turn: its three requests (12 in, 9 out each), the spawned thread's one not among them.
      const turn = JSON.parse(f.stdout.split('\n').find((l) => l.includes('"turn.completed"'))!) as { usage: { input_tokens: number; output_tokens: number } };
      expect([root.own?.inputTokens, root.own?.outputTokens]).toEqual([turn.usage.input_tokens, turn.usage.output_tokens]);
      expect([sub.own?.inputTokens, sub.own?.outputTokens]).toEqual([12, 9]);
      expect(root.subagents).toEqual(sub.total);
      expect([root.total?.inputTokens, root.total?.outputTokens]).toEqual([turn.usage.input_tokens + 12, turn.usage.output_tokens + 9]);
      expect((await store.getRun(parentRun.id))!.attempts).toHaveLength(3);
      expect((await store.getRun(childRun.id))!.attempts).toHaveLength(1);
      expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });

      // The metric point of the started thread is on the spawning thread's run; a late link is journaled on the child's.
      const parentEvents = await store.getEvents(parentRun.id);
      expect(
        parentEvents.filter((e) => e.type === 'externalEvent' && e.name === 'codex.thread.started').map((e) => e.type === 'externalEvent' && e.attributes),
      ).toEqual([expect.objectContaining({ session_source: `subagent_thread_spawn_${parent}_d1`, 'metric.value': 1 })]);
      const linked = (await store.getEvents(childRun.id)).filter((e) => e.type === 'externalRunSpawned');
      expect(linked.map((e) => e.type === 'externalRunSpawned' && e.spawnedBy)).toEqual(
        linkedAtStart ? [] : [{ runId: parentRun.id, agentId: child, agentName: null }],
      );
    },
  );
  it.each(['arrival', 'reversed'] as const)('nests a thread spawned by a spawned thread two levels down (%s order), each with its own spend', async (order) => {
    const { f, store, runs, tree } = await ingested(order, NESTED);
    const spawns = f.exports.flatMap(recordsOf).flatMap((r) => codexSpawnOf(r) ?? []);
    expect(spawns).toHaveLength(2);
    const [outer, inner] = spawns as [(typeof spawns)[0], (typeof spawns)[0]];
    // The first thread spawned the outer one, which spawned the inner one.
    expect(inner.parentThreadId).toBe(outer.childThreadId);
    const root = outer.parentThreadId;
    expect(f.stdout).toContain(`"thread_id":"${root}"`);
    expect(runs).toHaveLength(3);
    const nodes = await tree(runIdOf(inner.childThreadId));
    expect(nodes.map((n) => [n.runId, n.parentRunId, n.depth, n.agentId])).toEqual([
      [runIdOf(root), null, 0, null],
      [runIdOf(outer.childThreadId), runIdOf(root), 1, outer.childThreadId],
      [runIdOf(inner.childThreadId), runIdOf(outer.childThreadId), 2, inner.childThreadId],
    ]);
    // The agent's 3 requests, the outer thread's 2, the inner's 1: 12 in and 9 out each; each level's subagents' spend is the level below's total.
    const turn = JSON.parse(f.stdout.split('\n').find((l) => l.includes('"turn.completed"'))!) as { usage: { input_tokens: number; output_tokens: number } };
    expect(nodes.map((n) => [n.own?.inputTokens, n.own?.outputTokens])).toEqual([
      [turn.usage.input_tokens, turn.usage.output_tokens],
      [24, 18],
      [12, 9],
    ]);
    expect(nodes[0]!.subagents).toEqual(nodes[1]!.total);
    expect(nodes[1]!.subagents).toEqual(nodes[2]!.total);
    expect([nodes[0]!.total?.inputTokens, nodes[0]!.total?.outputTokens]).toEqual([turn.usage.input_tokens + 36, turn.usage.output_tokens + 27]);
    expect(await store.verifyAggregates()).toEqual({ ok: true, diffs: [] });
  });
});
