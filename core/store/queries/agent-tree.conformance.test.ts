import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent, SpawnedBy } from '../../base/events.js';
import { agentTree, MAX_TREE_DEPTH, spawnLinks } from './agent-tree.js';
import type { HivewatchStore } from '../contract.js';
import { openStore } from '../open.js';
import { testEngines } from '../testing/engines.js';
import { DAY_MS } from '../rollups/usage-rollups.js';
import { claudeSessionStarted } from '../testing/journal-builder.js';

/**
 * Agent trees through the store on every engine (migration 24): runStarted's `spawnedBy` links
 * a subagent's run to its parent's; the tree reads alike from any of its runs, to any depth;
 * a cycle of spawns (hostile telemetry) ends; prune takes a pruned run's links with it.
 */

const { engines, start, stop } = testEngines('agent-tree', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 20);

/** An external session's run (one prompt, one request of `costUsd`), a subagent's when `spawnedBy` is set; failed when `fail`. */
function session(runId: string, at: number, costUsd: number, spawnedBy: SpawnedBy | null, fail = false): HivewatchEvent[] {
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1' };
  const usage = { source: 'telemetry' as const, inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd };
  const error = {
    code: 'RUNTIME_PROVIDER_ERROR',
    category: 'runtime',
    origin: 'runtime:claude-code',
    message: 'HTTP 500',
    retryable: true,
    recoveryHint: null,
    context: {},
    correlation: {},
    timestamp: at,
  };
  const bodies = [
    claudeSessionStarted(runId, spawnedBy),
    { type: 'stepStarted', step: 1, frontier: [] },
    { type: 'taskStarted', ...ref, name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    fail
      ? { type: 'attemptFailed', ...ref, attempt: 1, durationMs: 900, error, usage }
      : { type: 'attemptSucceeded', ...ref, attempt: 1, durationMs: 900, usage },
  ];
  return bodies.map((body, i) => ({ ...body, runId, seq: i + 1, ts: at + i * 1000 }) as HivewatchEvent);
}

const spawn = (runId: string, agentId: string, agentName: string | null = null): SpawnedBy => ({ runId, agentId, agentName });

describe.each(engines)('agent trees on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const fresh = async (): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('reads a tree of depth 2 from any of its runs, parents first, each run with its own status and usage', async () => {
    const store = await fresh();
    await store.appendEvents(session('main', T0, 1, null));
    await store.appendEvents(session('sub-a', T0 + 10_000, 0.25, spawn('main', 'agent-a', 'Explore')));
    await store.appendEvents(session('sub-b', T0 + 20_000, 0.125, spawn('sub-a', 'agent-b'), true));
    await store.appendEvents(session('sub-c', T0 + 30_000, 0.5, spawn('main', 'agent-c', 'Plan')));
    await store.appendEvents(session('alone', T0, 2, null));

    const expected = [
      ['main', null, 0, null, 'running'],
      ['sub-a', 'main', 1, 'agent-a', 'running'],
      ['sub-c', 'main', 1, 'agent-c', 'running'],
      ['sub-b', 'sub-a', 2, 'agent-b', 'running'],
    ];
    for (const from of ['main', 'sub-a', 'sub-b', 'sub-c']) {
      const rows = await store.runStatements((d) => agentTree(d, from));
      expect(rows.map((r) => [r.runId, r.parentRunId, r.depth, r.agentId, r.run?.status ?? null])).toEqual(expected);
    }
    const b = (await store.runStatements((d) => agentTree(d, 'sub-b'))).find((r) => r.runId === 'sub-b')!;
    expect(b.run).toMatchObject({ attemptCount: 1, flowName: 'Claude Code session sub-b' });
    expect((await store.usage({ kind: 'runs', runIds: ['sub-b'] })).get('sub-b')).toMatchObject({ failedAttempts: 1, costUsd: 0.125 });
    expect((await store.runStatements((d) => agentTree(d, 'alone'))).map((r) => r.runId)).toEqual(['alone']);

    const links = await store.runStatements((d) => spawnLinks(d, ['main', 'sub-a', 'sub-b', 'alone']));
    expect(links.parents.sort((x, y) => x.runId.localeCompare(y.runId))).toEqual([
      { runId: 'sub-a', parentRunId: 'main' },
      { runId: 'sub-b', parentRunId: 'sub-a' },
    ]);
    expect([...links.children.entries()].sort()).toEqual([
      ['main', 2],
      ['sub-a', 1],
    ]);
  });

  it('keeps a subagent whose parent run has not arrived yet, and a cycle of spawns ends', async () => {
    const store = await fresh();
    await store.appendEvents(session('early', T0, 0.25, spawn('not-yet', 'agent-e')));
    expect((await store.runStatements((d) => agentTree(d, 'early'))).map((r) => [r.runId, r.run === null])).toEqual([
      ['not-yet', true],
      ['early', false],
    ]);

    await store.appendEvents(session('x', T0, 0.1, spawn('y', 'agent-x')));
    await store.appendEvents(session('y', T0, 0.1, spawn('x', 'agent-y')));
    const rows = await store.runStatements((d) => agentTree(d, 'x'));
    expect(rows.map((r) => r.runId).sort()).toEqual(['x', 'y']);
    expect(rows.every((r) => r.depth <= MAX_TREE_DEPTH)).toBe(true);
  });

  it('links a run that started alone when a later event names its parent (externalRunSpawned); the first parent named stays', async () => {
    const store = await fresh();
    await store.appendEvents(session('parent', T0, 1, null));
    await store.appendEvents(session('thread', T0 + 1000, 0.25, null));
    expect((await store.runStatements((d) => agentTree(d, 'thread'))).map((r) => r.runId)).toEqual(['thread']);
    const named = (seq: number, parent: string): HivewatchEvent =>
      ({ type: 'externalRunSpawned', runId: 'thread', seq, ts: T0 + 5000, spawnedBy: spawn(parent, 'thread-id') }) as HivewatchEvent;
    await store.appendEvents([named(6, 'parent')]);
    await store.appendEvents([named(7, 'other')]);
    for (const from of ['parent', 'thread']) {
      expect((await store.runStatements((d) => agentTree(d, from))).map((r) => [r.runId, r.parentRunId, r.agentId])).toEqual([
        ['parent', null, null],
        ['thread', 'parent', 'thread-id'],
      ]);
    }
    expect(await store.runStatements((d) => spawnLinks(d, ['parent']))).toEqual({ parents: [], children: new Map([['parent', 1]]) });
  });

  it("ignores a spawn that names its own run, and prune takes a pruned run's links with it", async () => {
    const store = await fresh();
    await store.appendEvents(session('self', T0, 0.1, spawn('self', 'agent-s')));
    expect((await store.runStatements((d) => agentTree(d, 'self'))).map((r) => r.runId)).toEqual(['self']);

    const ended = (runId: string, seq: number): HivewatchEvent =>
      ({ type: 'externalRunIdle', runId, seq, ts: T0 + 60_000, quietMs: 60_000, lastEventAt: T0 }) as HivewatchEvent;
    await store.appendEvents([...session('old-main', T0, 1, null), ended('old-main', 6)]);
    await store.appendEvents([...session('old-sub', T0, 0.5, spawn('old-main', 'agent-o')), ended('old-sub', 6)]);
    expect(await store.runStatements((d) => agentTree(d, 'old-sub'))).toHaveLength(2);
    const report = await store.prune({ olderThanMs: DAY_MS });
    expect(report).toMatchObject({ runs: 2 });
    expect(await store.runStatements((d) => spawnLinks(d, ['old-sub', 'old-main']))).toEqual({ parents: [], children: new Map() });
  });
});
