import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../../base/events.js';
import type { TokenUsage } from '../../base/usage.js';
import { assertProperty } from '../../testing/property.js';
import { seededRandom } from '../../testing/seeded-random.js';
import type { HivewatchStore } from '../contract.js';
import { fingerprintOf } from '../projection/fingerprint.js';
import { openStore } from '../open.js';
import { testEngines } from '../testing/engines.js';
import { JournalBuilder, randomJournals } from '../testing/journal-builder.js';
import { costSplitByScan } from '../testing/outcome-scans.js';
import type { CostSplit, CostSplitAnswer, CostSplitQuery } from './cost-split.js';

/**
 * What failure costs, on every engine: the three outcomes add up to everything spent (the usage
 * tables' total) for generated histories, the rollups answer any window and filter exactly as a
 * plain GROUP BY over the attempts and runs does, and a run's spend moves when it fails, when a
 * session comes back, and when it is pruned.
 */

const { engines, start, stop } = testEngines('cost_split', { readPool: true });
beforeAll(start, 60_000);
afterAll(stop);

const DAY0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const claude = (costUsd: number, inputTokens = 100, outputTokens = 10): TokenUsage => ({ source: 'result', inputTokens, outputTokens, costUsd });

/** Each attempt end with a usage drawn from `random`: priced, tokens only, all zeros (no usage), or none. */
function withRandomUsage(events: readonly HivewatchEvent[], random: () => number): HivewatchEvent[] {
  return events.map((e) => {
    if (e.type !== 'attemptSucceeded' && e.type !== 'attemptFailed') return e;
    const roll = random();
    if (roll < 0.2) return e;
    if (roll < 0.3) return { ...e, usage: { source: 'result', inputTokens: 0, outputTokens: 0, costUsd: 0 } };
    if (roll < 0.4) return { ...e, usage: { source: 'result', inputTokens: 1 + Math.floor(random() * 500), outputTokens: Math.floor(random() * 80) } };
    return { ...e, usage: claude(Math.round(random() * 100) / 100 + 0.01, 1 + Math.floor(random() * 2000), Math.floor(random() * 300)) };
  });
}

const rename = (events: readonly HivewatchEvent[], prefix: string): HivewatchEvent[] =>
  events.map((e) => ({ ...e, runId: `${prefix}${e.runId}` }) as HivewatchEvent);

/** Costs to a tenth of a micro-dollar (floating sums in another order differ in the last bits). */
function rounded(answer: CostSplitAnswer): unknown {
  const split = (s: CostSplit): unknown => Object.fromEntries(Object.entries(s).map(([k, f]) => [k, { ...f, costUsd: Math.round(f.costUsd * 1e7) }]));
  return {
    total: split(answer.total),
    flows: answer.flows.map((f) => ({ flow: f.flow, split: split(f.split) })).sort((a, b) => (a.flow < b.flow ? -1 : 1)),
    trend: {
      grain: answer.trend.grain,
      points: answer.trend.points.map((p) => ({
        at: p.at,
        failed: Math.round(p.failed * 1e7),
        retried: Math.round(p.retried * 1e7),
        succeeded: Math.round(p.succeeded * 1e7),
      })),
    },
  };
}

const sumOf = (s: CostSplit, key: 'attempts' | 'inputTokens' | 'outputTokens' | 'costUsd' | 'unknownCostAttempts'): number =>
  s.failed[key] + s.retried[key] + s.succeeded[key];

describe.each(engines)('what failure costs on $name', (engine) => {
  const open: HivewatchStore[] = [];
  const fresh = async (now?: number): Promise<HivewatchStore> => {
    const store = await openStore({ path: await engine.fresh(), ...engine.options, ...(now !== undefined ? { now: () => now } : {}) });
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('adds up to the total, and equals a plain GROUP BY for any window and filter (generated histories)', async () => {
    const store = await fresh();
    let round = 0;
    const seen = { failed: 0, retried: 0, succeeded: 0 };
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 72 * 60 }),
        fc.integer({ min: 1, max: 96 * 60 }),
        fc.nat(6),
        async (seed, fromMinute, lengthMinutes, filterPick) => {
          round += 1;
          const random = seededRandom(seed);
          // Each run in pieces, so a failure often lands in a later batch than the spend it moves.
          for (const journal of randomJournals(seed, 8, { start: DAY0, spanMs: 3 * 86_400_000, openShare: 0.15 })) {
            const events = rename(withRandomUsage(journal, random), `r${round}-`);
            const cut = 1 + Math.floor(random() * (events.length - 1));
            await store.appendEvents(events.slice(0, cut));
            await store.appendEvents(events.slice(cut));
          }
          // Everything: the three outcomes are the usage tables' total, field by field.
          const all = await store.usage({ kind: 'costSplit', query: {} });
          const flows = await store.usage({ kind: 'flows' });
          const usageTotal = (key: 'attempts' | 'inputTokens' | 'outputTokens' | 'costUsd' | 'unknownCostAttempts'): number =>
            flows.reduce((n, f) => n + f[key], 0);
          for (const key of ['attempts', 'inputTokens', 'outputTokens', 'unknownCostAttempts'] as const) expect(sumOf(all.total, key)).toBe(usageTotal(key));
          expect(sumOf(all.total, 'costUsd')).toBeCloseTo(usageTotal('costUsd'), 6);
          for (const outcome of ['failed', 'retried', 'succeeded'] as const) seen[outcome] += all.total[outcome].attempts;

          // A window at any minute, and one filter the history has.
          const since = DAY0 + fromMinute * 60_000 + 17;
          const until = since + lengthMinutes * 60_000 + 3;
          const windowed = await store.usage({ kind: 'flows', query: { since, until } });
          const split = await store.usage({ kind: 'costSplit', query: { since, until } });
          expect(sumOf(split.total, 'attempts')).toBe(windowed.reduce((n, f) => n + f.attempts, 0));
          const filter = await someFilter(store, filterPick);
          const query: CostSplitQuery = { since, until, now: until, ...filter };
          const byRollups = await store.usage({ kind: 'costSplit', query });
          const byScan = await store.runStatements((dialect) => costSplitByScan(dialect, query));
          expect(rounded(byRollups)).toEqual(rounded(byScan));
          expect(rounded(await store.usage({ kind: 'costSplit', query: filter }))).toEqual(
            rounded(await store.runStatements((d) => costSplitByScan(d, filter))),
          );
        },
      ),
      { seed: 2101, numRuns: engine.name === 'SQLite' ? 12 : 5 },
    );
    // The generated histories reached every outcome (the property above was not about empty figures).
    expect(seen.failed).toBeGreaterThan(0);
    expect(seen.retried).toBeGreaterThan(0);
    expect(seen.succeeded).toBeGreaterThan(0);
  }, 240_000);

  it("moves a run's spend to failed when it fails, keyed by its ending error, and an issue costs its failed runs", async () => {
    const store = await fresh();
    const b = new JournalBuilder('run-f', { flow: 'flows/a.prose', flowName: 'a', start: DAY0 + HOUR, tick: 1000 }).start();
    b.runStep([
      {
        attempts: [
          { code: 'RUNTIME_RATE_LIMIT', origin: 'runtime:claude-code' },
          { code: 'RUNTIME_TIMEOUT', origin: 'runtime:claude-code' },
        ],
      },
    ]);
    const usages = [claude(0.17), claude(0.2)];
    let n = 0;
    const events = b.events.map((e) => (e.type === 'attemptFailed' ? { ...e, usage: usages[n++] as TokenUsage } : e));
    await store.appendEvents(events);
    const before = await store.usage({ kind: 'costSplit', query: {} });
    expect(before.total.retried.costUsd).toBeCloseTo(0.37, 9);
    expect(before.total.failed.attempts).toBe(0);
    // Under an origin filter the retried attempts are there; successful work never is.
    const origin = await store.usage({ kind: 'costSplit', query: { origin: 'runtime:claude-code' } });
    expect(origin.total.retried.attempts).toBe(2);

    b.fail();
    await store.appendEvents(b.events.slice(events.length));
    const after = await store.usage({ kind: 'costSplit', query: {} });
    expect(after.total.failed.costUsd).toBeCloseTo(0.37, 9);
    expect(after.total.retried.attempts).toBe(0);
    const ending = (await store.getRun('run-f'))!.run;
    const fingerprint = fingerprintOf(ending.endingCategory ?? '', ending.endingCode ?? '', ending.endingOrigin ?? '', ending.endingMessage ?? '').fingerprint;
    const issue = await store.usage({ kind: 'costSplit', query: { fingerprints: [fingerprint] } });
    expect(issue.total.failed.costUsd).toBeCloseTo(0.37, 9);
    expect((await store.usage({ kind: 'costSplit', query: { fingerprints: ['0000000000000000'] } })).total.failed.attempts).toBe(0);
    // The root cause's code finds it too (the Errors screen's code filter means either).
    expect((await store.usage({ kind: 'costSplit', query: { code: ending.endingRootCode ?? '' } })).total.failed.attempts).toBe(2);
    expect((await store.usage({ kind: 'costSplit', query: { origin: 'agent:nobody' } })).total).toEqual(
      (await store.usage({ kind: 'costSplit', query: { fingerprints: [] } })).total,
    );
  });

  it("moves a session's spend back when it comes back after failing, and forward again when it ends", async () => {
    const store = await fresh();
    const external = externalSession('ext-1', DAY0 + 2 * HOUR);
    await store.appendEvents(external.slice(0, 6));
    expect((await store.usage({ kind: 'costSplit', query: {} })).total.failed.costUsd).toBeCloseTo(0.3, 9);
    await store.appendEvents(external.slice(6, 9));
    const back = await store.usage({ kind: 'costSplit', query: {} });
    expect(back.total.failed.attempts).toBe(0);
    expect(back.total.retried.costUsd).toBeCloseTo(0.3, 9);
    expect(back.total.succeeded.costUsd).toBeCloseTo(0.1, 9);
    await store.appendEvents(external.slice(9));
    const done = await store.usage({ kind: 'costSplit', query: {} });
    expect(rounded(done)).toEqual(rounded(await store.runStatements((d) => costSplitByScan(d, {}))));
  });

  it("prune takes the pruned runs' spend out of every outcome", async () => {
    const now = DAY0 + 40 * 86_400_000;
    const store = await fresh(now);
    const random = seededRandom(7);
    for (const journal of randomJournals(7, 10, { start: DAY0, spanMs: 86_400_000 })) await store.appendEvents(withRandomUsage(journal, random));
    for (const journal of randomJournals(8, 10, { start: now - 86_400_000, spanMs: 3_600_000 })) await store.appendEvents(withRandomUsage(journal, random));
    await store.prune({ olderThanMs: 30 * 86_400_000 });
    const left = await store.usage({ kind: 'costSplit', query: {} });
    expect(left.total.failed.attempts + left.total.retried.attempts + left.total.succeeded.attempts).toBeGreaterThan(0);
    expect(rounded(left)).toEqual(rounded(await store.runStatements((d) => costSplitByScan(d, {}))));
  });
});

/** One filter of the history's own keys (or none), chosen by `pick`. */
async function someFilter(store: HivewatchStore, pick: number): Promise<CostSplitQuery> {
  const failures = await store.failureCounts({ by: 'code', limit: 3 });
  const code = failures.rows[0]?.key;
  switch (pick) {
    case 1:
      return { category: 'runtime' };
    case 2:
      return { origin: 'runtime:claude-code' };
    case 3:
      return code === undefined ? {} : { code };
    case 4:
      return { flow: 'flows/b.prose' };
    case 5: {
      const groups = await store.errorGroups({ limit: 3 });
      return { fingerprints: groups.map((g) => g.fingerprint) };
    }
    default:
      return {};
  }
}

/** A telemetry session: a failed prompt ($0.30) ends it failed; it comes back, a prompt succeeds ($0.10), it ends completed. */
function externalSession(runId: string, at: number): HivewatchEvent[] {
  const ref = { step: 1, ordinal: 0, taskId: 'prompt-1' };
  const error = {
    category: 'runtime',
    code: 'RUNTIME_RATE_LIMIT',
    origin: 'runtime:claude-code',
    message: 'rate limited',
    recoverable: true,
    timestamp: at,
    correlation: {},
    context: {},
  };
  const bodies = [
    {
      type: 'runStarted',
      flow: 'external:claude-code',
      flowName: 'Claude Code session s1',
      resumedFrom: null,
      retryOf: null,
      resumeStep: 0,
      options: { maxSteps: 1, concurrency: 1, clock: 'real', defaultAgent: 'claude-code' },
      external: { origin: 'runtime:claude-code', sessionId: 's1', source: 'claude-code 2.1.332' },
    },
    { type: 'stepStarted', step: 1, frontier: [] },
    { type: 'taskStarted', ...ref, name: 'prompt 1', agent: 'claude-code', maxAttempts: 0 },
    { type: 'attemptStarted', ...ref, attempt: 1 },
    { type: 'attemptFailed', ...ref, attempt: 1, durationMs: 900, error, usage: claude(0.3) },
    { type: 'externalRunIdle', quietMs: 60_000, lastEventAt: at + 4000, error },
    { type: 'externalRunReopened', idleSince: at + 4000 },
    { type: 'attemptStarted', ...ref, attempt: 2 },
    { type: 'attemptSucceeded', ...ref, attempt: 2, durationMs: 500, usage: claude(0.1) },
    { type: 'externalRunIdle', quietMs: 60_000, lastEventAt: at + 9000 },
  ];
  return bodies.map((body, i) => ({ ...body, runId, seq: i + 1, ts: at + i * 1000 }) as HivewatchEvent);
}
