import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { TokenUsage } from '../../base/usage.js';
import { IssueTransitions } from '../../store/issues/issue-transitions.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder, type ErrorSpec } from '../../store/testing/journal-builder.js';
import { costApi } from './outcomes.js';
import { IssueBook } from '../issues/book.js';
import { usageApi } from './usage.js';

/**
 * What failure costs through the service on every engine: an issue's cost is its failed runs'
 * spend (what the issue page shows), and the Errors screen's issue-status filter keeps the runs
 * whose issue has that status now, and only those, as its origin filter keeps only its origin.
 */

const { engines, start, stop } = testEngines('cost_api');
beforeAll(start, 60_000);
afterAll(stop);

const T0 = Date.UTC(2026, 10, 20, 12);
const RATE: ErrorSpec = { code: 'RUNTIME_RATE_LIMIT', message: 'runtime fake was rate limited: 429 Too Many Requests', origin: 'runtime:fake' };
const CRASH: ErrorSpec = { code: 'RUNTIME_CRASHED', message: 'runtime command exited with code 2', origin: 'runtime:command' };

const priced = (costUsd: number): TokenUsage => ({ source: 'result', inputTokens: 100, outputTokens: 10, costUsd });

/** A run whose attempts cost `costs` in turn, failing with `error` on every attempt but (when `recovers`) the last. */
function run(id: string, at: number, error: ErrorSpec, costs: number[], recovers: boolean): HivewatchEvent[] {
  const attempts = costs.map((_, i) => (recovers && i === costs.length - 1 ? ('ok' as const) : error));
  const b = new JournalBuilder(id, { start: at, flow: 'flows/api.prose', flowName: 'api', tick: 1000 }).start().runStep([{ attempts }]);
  const events = recovers ? b.complete().events : b.fail().events;
  let n = 0;
  return events.map((e) => (e.type === 'attemptSucceeded' || e.type === 'attemptFailed' ? { ...e, usage: priced(costs[n++] as number) } : e));
}

describe.each(engines)('cost in the API on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('lists the costliest runs first, at most the limit asked, and refuses a limit out of bounds', async () => {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    await store.appendEvents(run('cheap', T0, RATE, [0.5], false));
    await store.appendEvents(run('dear', T0 + 60_000, RATE, [0.1, 2], true));
    await store.appendEvents(run('middle', T0 + 120_000, CRASH, [1], false));
    const api = usageApi(store);
    const all = await api.costliestRuns({});
    expect(all.map((r) => [r.runId, r.flow, r.status])).toEqual([
      ['dear', 'flows/api.prose', 'completed'],
      ['middle', 'flows/api.prose', 'failed'],
      ['cheap', 'flows/api.prose', 'failed'],
    ]);
    expect(all[0]?.costUsd).toBeCloseTo(2.1, 9);
    expect((await api.costliestRuns({ limit: 1 })).map((r) => r.runId)).toEqual(['dear']);
    expect((await api.costliestRuns({ since: T0 + 90_000 })).map((r) => r.runId)).toEqual(['middle']);
    expect(await api.costliestRuns({ flow: 'flows/other.prose' })).toEqual([]);
    await expect(api.costliestRuns({ limit: 0 })).rejects.toMatchObject({ status: 400, apiCode: 'invalid_input' });
  });

  it('an issue costs its failed runs; the issue status and origin filters keep only theirs', async () => {
    const store = await openStore({ path: await engine.fresh() });
    open.push(store);
    await store.appendEvents(run('rate-failed', T0, RATE, [0.5, 0.25], false));
    await store.appendEvents(run('rate-recovered', T0 + 60_000, RATE, [0.1, 2], true));
    await store.appendEvents(run('crash-failed', T0 + 120_000, CRASH, [1], false));
    const book = new IssueBook({ store, hub: new IssueTransitions(), host: 'h1', now: () => T0 + 3_600_000 });
    await book.reconcile();
    const api = costApi(store, book, () => T0 + 3_600_000);

    const all = await api.costSplit({});
    expect(all.total.failed.costUsd).toBeCloseTo(1.75, 9);
    expect(all.total.retried.costUsd).toBeCloseTo(0.1, 9);
    expect(all.total.succeeded.costUsd).toBeCloseTo(2, 9);

    const crashRun = (await store.getRun('crash-failed'))!.run;
    const issues = (await book.list({ status: 'unresolved' })).items;
    const crash = issues.find((i) => i.title.startsWith(crashRun.endingCode ?? ''))!;
    const cost = (await api.costSplit({ issue: crash.id })).total;
    expect(cost.failed.costUsd).toBeCloseTo(1, 9);
    expect(cost.failed.attempts).toBe(1);

    // Resolve the crash's issue: under "unresolved" its run's spend is gone, under "resolved" it is all there is.
    await book.setStatus({ id: crash.id, action: 'resolve', by: 'cli' });
    const unresolved = await api.costSplit({ issueStatus: 'unresolved' });
    expect(unresolved.total.failed.costUsd).toBeCloseTo(0.75, 9);
    expect(unresolved.total.succeeded.attempts).toBe(0);
    const resolved = await api.costSplit({ issueStatus: 'resolved' });
    expect(resolved.total.failed.costUsd).toBeCloseTo(1, 9);
    expect(resolved.total.retried.attempts).toBe(0);

    // An origin no run failed with costs nothing, next to its "0 failures".
    expect((await store.failureCounts({ by: 'code', origin: 'runtime:claude-code' })).total).toBe(0);
    const none = await api.costSplit({ origin: 'runtime:claude-code' });
    expect(none.total.failed.attempts + none.total.retried.attempts + none.total.succeeded.attempts).toBe(0);
    await expect(api.costSplit({ issue: 'abc' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('issue: must be an issue id') as unknown,
    });

    const health = await api.flowHealth({ since: T0 - 1 });
    expect(health).toEqual([
      expect.objectContaining({
        flow: 'flows/api.prose',
        lastRun: expect.objectContaining({ id: 'crash-failed', status: 'failed' }) as unknown,
        ended: { completed: 1, failed: 2, cancelled: 0, interrupted: 0 },
      }),
    ]);
    expect(health[0]!.successRate).toBeCloseTo(1 / 3, 9);
  });
});
