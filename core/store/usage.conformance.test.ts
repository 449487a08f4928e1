import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import type { TokenUsage } from '../base/usage.js';
import type { HivewatchStore } from './contract.js';
import { openStore } from './open.js';
import { testEngines } from './testing/engines.js';
import { JournalBuilder } from './testing/journal-builder.js';
import { DAY_MS } from './rollups/usage-rollups.js';

/**
 * Tokens and cost through the store's contract on every engine (migration 16): per run
 * with the failed share, per flow over any window (whole days from the rollup, partial edges
 * from the attempts), and a session whose telemetry a Hivewatch attempt produced counted once.
 */

const { engines, start, stop } = testEngines('usage', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

/** Midnight UTC of 2026-11-20: day boundaries fall where the test says. */
const DAY0 = Date.UTC(2026, 10, 20);

/** The builder's journal with `usages[i]` on its i-th attempt end (null: that attempt reported none). */
function withUsage(events: readonly HivewatchEvent[], usages: readonly (TokenUsage | null)[]): HivewatchEvent[] {
  let n = 0;
  return events.map((e) => {
    if (e.type !== 'attemptSucceeded' && e.type !== 'attemptFailed') return e;
    const usage = usages[n++] ?? null;
    return usage ? { ...e, usage } : e;
  });
}

const claude = (costUsd: number, inputTokens: number, outputTokens: number): TokenUsage => ({
  source: 'result',
  inputTokens,
  outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd,
});

/** A run of flows/a.prose at `at`: a failed attempt ($0.17), then one that succeeded ($0.25). */
function failedThenSucceeded(runId: string, at: number): HivewatchEvent[] {
  const run = new JournalBuilder(runId, { flow: 'flows/a.prose', flowName: 'a', start: at, tick: 1000 })
    .start()
    .runStep([{ attempts: [{ code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code' }, 'ok'] }])
    .complete();
  return withUsage(run.events, [claude(0.17, 100, 10), { ...claude(0.25, 200, 20), cacheReadTokens: 50 }]);
}

/** The telemetry session the attempt `parent` ran: its own $0.25, which the attempt's result already counts. */
function linkedSession(runId: string, at: number, parent: { runId: string; taskId: string; attempt: number }): HivewatchEvent[] {
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1' };
  const bodies = [
    {
      type: 'runStarted',
      flow: 'external:claude-code',
      flowName: 'Claude Code session s1',
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
      options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: 'claude-code' },
      external: { origin: 'runtime:claude-code', sessionId: 's1', source: 'claude-code 2.1.332', parent },
    },
    { type: 'stepStarted', step: 1, frontier: [] },
    { type: 'taskStarted', ...ref, name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    {
      type: 'attemptSucceeded',
      ...ref,
      attempt: 1,
      durationMs: 900,
      usage: { source: 'telemetry', inputTokens: 200, outputTokens: 20, cacheReadTokens: 50, cacheWriteTokens: 0, costUsd: 0.25 },
    },
  ];
  return bodies.map((body, i) => ({ ...body, runId, seq: i + 1, ts: at + i * 1000 }) as HivewatchEvent);
}

describe.each(engines)('tokens and cost on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const fresh = async (): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('sums a run with its failed share, and says where the cost is unknown', async () => {
    const store = await fresh();
    await store.appendEvents(failedThenSucceeded('run-a', DAY0 + 3_600_000));
    const codex = new JournalBuilder('run-b', { flow: 'flows/b.prose', flowName: 'b', start: DAY0 + 7_200_000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(withUsage(codex.events, [{ source: 'result', inputTokens: 40, cacheReadTokens: 110, outputTokens: 15 }]));
    const plain = new JournalBuilder('run-c', { flow: 'flows/b.prose', start: DAY0 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(plain.events);

    const runs = await store.usage({ kind: 'runs', runIds: ['run-a', 'run-b', 'run-c'] });
    expect(runs.get('run-a')).toEqual({
      runId: 'run-a',
      countedIn: null,
      attempts: 2,
      failedAttempts: 1,
      inputTokens: 300,
      outputTokens: 30,
      cacheReadTokens: 50,
      cacheWriteTokens: 0,
      costUsd: expect.closeTo(0.42, 10) as number,
      failedCostUsd: expect.closeTo(0.17, 10) as number,
      unknownCostAttempts: 0,
    });
    expect(runs.get('run-b')).toMatchObject({ attempts: 1, costUsd: 0, unknownCostAttempts: 1, inputTokens: 40, cacheReadTokens: 110 });
    // A run whose attempts reported nothing has no usage at all (not a cost of zero).
    expect(runs.has('run-c')).toBe(false);
  });

  it('counts a preset attempt and its own telemetry once: the session keeps its totals, the flows count the attempt', async () => {
    const store = await fresh();
    const at = DAY0 + 3_600_000;
    const run = failedThenSucceeded('run-a', at);
    const succeeded = run.find((e): e is Extract<HivewatchEvent, { type: 'attemptSucceeded' }> => e.type === 'attemptSucceeded')!;
    const parent = { runId: 'run-a', taskId: succeeded.taskId, attempt: succeeded.attempt };
    await store.appendEvents(run.slice(0, 6));
    await store.appendEvents(linkedSession('ext-1', at + 4000, parent));
    await store.appendEvents(run.slice(6));

    const session = (await store.usage({ kind: 'runs', runIds: ['ext-1'] })).get('ext-1');
    expect(session).toMatchObject({ countedIn: parent, attempts: 1, costUsd: 0.25 });
    const flows = await store.usage({ kind: 'flows' });
    expect(flows.map((f) => [f.flow, f.attempts, Number(f.costUsd.toFixed(6)), Number(f.failedCostUsd.toFixed(6))])).toEqual([
      ['flows/a.prose', 2, 0.42, 0.17],
    ]);
  });

  it('totals flows over any window: whole days from the rollup, the partial days at its edges from the attempts', async () => {
    const store = await fresh();
    // Runs on day 0 at 01:00, day 1 at 12:00 and day 2 at 23:00 (each a failed then a succeeded attempt, $0.42).
    for (const [i, at] of [DAY0 + 3_600_000, DAY0 + DAY_MS + 12 * 3_600_000, DAY0 + 2 * DAY_MS + 23 * 3_600_000].entries()) {
      await store.appendEvents(failedThenSucceeded(`run-${i}`, at));
    }
    const cost = async (since?: number, until?: number): Promise<number> => {
      const flows = await store.usage({ kind: 'flows', query: { ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}) } });
      return Number(flows.reduce((sum, f) => sum + f.costUsd, 0).toFixed(6));
    };
    expect(await cost()).toBe(1.26);
    expect(await cost(DAY0 + 2 * 3_600_000)).toBe(0.84);
    expect(await cost(DAY0, DAY0 + 2 * DAY_MS)).toBe(0.84);
    expect(await cost(DAY0 + 11 * 3_600_000 + DAY_MS, DAY0 + 13 * 3_600_000 + DAY_MS)).toBe(0.42);
    expect(await cost(DAY0 + 2 * 3_600_000, DAY0 + 2 * DAY_MS + 22 * 3_600_000)).toBe(0.42);
    expect(await cost(DAY0 + 3 * DAY_MS)).toBe(0);
    const failed = await store.usage({ kind: 'flows', query: { since: DAY0, flow: 'flows/a.prose' } });
    expect(failed.map((f) => [f.failedAttempts, Number(f.failedCostUsd.toFixed(6))])).toEqual([[3, 0.51]]);
    expect(await store.usage({ kind: 'flows', query: { flow: 'flows/none.prose' } })).toEqual([]);
  });

  it('prune takes the pruned runs out of the flow totals and keeps the rest exact', async () => {
    const now = DAY0 + 40 * DAY_MS;
    const store = await openStore({ path: await engine.fresh(), ...engine.options, now: () => now });
    open.push(store);
    await store.appendEvents(failedThenSucceeded('run-old', DAY0));
    await store.appendEvents(failedThenSucceeded('run-new', now - DAY_MS));
    const report = await store.prune({ olderThanMs: 30 * DAY_MS });
    expect(report.runs).toBe(1);
    const flows = await store.usage({ kind: 'flows' });
    expect(flows.map((f) => [f.attempts, Number(f.costUsd.toFixed(6))])).toEqual([[2, 0.42]]);
    expect([...(await store.usage({ kind: 'runs', runIds: ['run-old', 'run-new'] })).keys()]).toEqual(['run-new']);
  });

  it('lists the costliest runs first', async () => {
    const store = await fresh();
    await store.appendEvents(failedThenSucceeded('run-a', DAY0));
    const cheap = new JournalBuilder('run-b', { flow: 'flows/b.prose', start: DAY0 + 1000 })
      .start()
      .runStep([{ attempts: ['ok'] }])
      .complete();
    await store.appendEvents(withUsage(cheap.events, [claude(0.01, 5, 1)]));
    const runs = await store.usage({ kind: 'costliestRuns', query: { since: DAY0, limit: 5 } });
    expect(runs.map((r) => [r.runId, r.flow])).toEqual([
      ['run-a', 'flows/a.prose'],
      ['run-b', 'flows/b.prose'],
    ]);
  });
});
