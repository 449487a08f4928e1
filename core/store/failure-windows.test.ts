import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HivewatchEvent } from '../base/events.js';
import type { HivewatchStore } from './contract.js';
import { FAILURE_DIMENSIONS } from './queries/failures.js';
import { openStore } from './open.js';
import type { RunRow } from './projection/schema.js';
import { testEngines } from './testing/engines.js';
import { failFast, rethrow, retryLimit, thrownInCatch } from './testing/failure-journals.js';
import { prng, randomJournals } from './testing/journal-builder.js';

/**
 * Failures are counted by the run's end (docs/semantics.md F4): in any window, failures equal the
 * runs that ended `failed` there, on every engine; and the run list's error filters mean the
 * ending error (`code`, `category`) or any occurrence (`anyCode`, `anyCategory`).
 *
 * Seeded: HIVEWATCH_STORE_SEED=<n> replays a run of this suite (the seed is in every message).
 */

const SEED = process.env.HIVEWATCH_STORE_SEED === undefined ? 20_260_119 : Number(process.env.HIVEWATCH_STORE_SEED);
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

const { engines, start, stop } = testEngines('failure-windows');
beforeAll(start, 60_000);
afterAll(stop);

/** Random runs over three days (some failing, cancelled, left open) and the failure model's scenarios among them. */
function history(seed: number): HivewatchEvent[][] {
  const random = prng(seed);
  const journals = randomJournals(seed, 80, { start: T0, spanMs: 3 * DAY, openShare: 0.1 });
  const scenarios = [retryLimit, rethrow, thrownInCatch, failFast] as const;
  for (let i = 0; i < 24; i += 1) {
    const make = scenarios[i % scenarios.length]!;
    const options = {
      start: T0 + Math.floor(random() * 3 * DAY),
      tick: 1 + Math.floor(random() * 90_000),
      flow: `flows/s${i % 3}.prose`,
      flowName: `s${i % 3}`,
    };
    journals.push(make(`scenario-${i}`, Math.floor(i / scenarios.length) % 2 === 0 ? 'legacy' : 'chained', options).events);
  }
  // Virtual-clock runs whose clock ran weeks ahead: they end (and count) at the store's wall time.
  for (let i = 0; i < 3; i += 1) journals.push(retryLimit(`virtual-${i}`, 'chained', { clock: 'virtual', start: T0 + 30 * DAY }).events);
  return journals;
}

describe.each(engines)('failures by window and the run list’s error filters on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  async function filled(seed: number): Promise<{ store: HivewatchStore; failed: RunRow[] }> {
    // The store's clock stamps the virtual-clock runs' walls (inside the three days).
    const store = await openStore({ path: await engine.fresh(), recover: false, now: () => T0 + DAY + 1_234 });
    open.push(store);
    for (const journal of history(seed)) await store.appendEvents(journal);
    const failed = (await store.listRuns({ status: ['failed'], limit: 1_000 })).runs;
    return { store, failed };
  }

  it('in any window, failures equal the runs that ended failed in it (seeded windows, every dimension)', async () => {
    const { store, failed } = await filled(SEED);
    expect(failed.length, `seed ${SEED}`).toBeGreaterThan(20);
    expect(failed.filter((r) => r.id.startsWith('virtual-')).map((r) => r.endedWall)).toEqual([T0 + DAY + 1_234, T0 + DAY + 1_234, T0 + DAY + 1_234]);
    const random = prng(SEED + 1);
    const windows: { since?: number; until?: number }[] = [{}, { since: T0 }, { until: T0 + DAY }];
    for (let i = 0; i < 12; i += 1) {
      // Edges anywhere: inside minutes, hours and days, so rollups and the runs at the edges both answer.
      const a = T0 - DAY + Math.floor(random() * 5 * DAY);
      const b = a + Math.floor(random() * (i % 3 === 0 ? 90_000 : 2 * DAY));
      windows.push({ since: a, until: b });
    }
    for (const window of windows) {
      const expected = failed.filter(
        (r) => (window.since === undefined || r.endedWall! >= window.since) && (window.until === undefined || r.endedWall! < window.until),
      ).length;
      for (const by of FAILURE_DIMENSIONS) {
        const counts = await store.failureCounts({ by, ...window, limit: 10_000 });
        const label = `seed ${SEED}, by ${by}, window ${JSON.stringify(window)}`;
        expect(counts.total, label).toBe(expected);
        expect(
          counts.rows.reduce((n, r) => n + r.count, 0),
          label,
        ).toBe(expected);
      }
    }
    expect((await store.verifyAggregates()).diffs, `seed ${SEED}`).toEqual([]);
  });

  it('filters failures like runs: by flow, category, origin and code (head or root)', async () => {
    const { store, failed } = await filled(SEED + 2);
    const matching = (f: (r: RunRow) => boolean): number => failed.filter(f).length;
    expect((await store.failureCounts({ by: 'flow', flow: 's1' })).total).toBe(matching((r) => r.flow === 'flows/s1.prose'));
    expect((await store.failureCounts({ by: 'code', category: 'policy' })).total).toBe(matching((r) => r.endingCategory === 'policy'));
    expect((await store.failureCounts({ by: 'code', origin: 'policy' })).total).toBe(matching((r) => r.endingOrigin === 'policy'));
    const timeouts = matching((r) => r.endingCode === 'RUNTIME_TIMEOUT' || r.endingRootCode === 'RUNTIME_TIMEOUT');
    expect(timeouts).toBeGreaterThan(0);
    expect((await store.failureCounts({ by: 'rootCode', code: 'RUNTIME_TIMEOUT' })).total).toBe(timeouts);
  });

  it('run list: code / category mean the ending error (head or root), anyCode / anyCategory any occurrence; chips follow', async () => {
    const { store, failed } = await filled(SEED + 3);
    const ids = async (query: Parameters<HivewatchStore['listRuns']>[0]): Promise<string[]> => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.listRuns({ ...query, limit: 7, cursor });
        out.push(...page.runs.map((r) => r.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      return out;
    };
    const all = (await store.listRuns({ limit: 1_000 })).runs;
    const everyError = new Map<string, Set<string>>();
    let cursor: string | null = null;
    do {
      const page = await store.listErrors({ limit: 500, cursor });
      for (const e of page.errors) everyError.set(e.runId, new Set([...(everyError.get(e.runId) ?? []), e.code, `category:${e.category}`]));
      cursor = page.nextCursor;
    } while (cursor !== null);
    const expectIds = (got: string[], want: RunRow[], label: string): void => {
      expect(new Set(got), label).toEqual(new Set(want.map((r) => r.id)));
      expect(got.length, `${label}: no run twice`).toBe(want.length);
    };
    for (const code of ['RUNTIME_CRASHED', 'RUNTIME_TIMEOUT', 'POLICY_RETRY_LIMIT_EXCEEDED', 'USER_THROWN', 'SYSTEM_CANCELLED']) {
      const ending = all.filter((r) => r.endingCode === code || r.endingRootCode === code);
      expectIds(await ids({ code }), ending, `code=${code}`);
      expectIds(await ids({ code, sort: '-ended' }), ending, `code=${code} by end`);
      const any = all.filter((r) => everyError.get(r.id)?.has(code));
      expectIds(await ids({ anyCode: code }), any, `anyCode=${code}`);
      const counts = await store.countRuns({ code });
      expect(counts.total, `countRuns code=${code}`).toBe(ending.length);
      expect(counts.byStatus.failed ?? 0, `chip failed code=${code}`).toBe(ending.filter((r) => r.status === 'failed').length);
      expect((await store.countRuns({ anyCode: code })).total, `countRuns anyCode=${code}`).toBe(any.length);
    }
    for (const category of ['runtime', 'policy', 'system']) {
      expectIds(
        await ids({ category }),
        all.filter((r) => r.endingCategory === category),
        `category=${category}`,
      );
      expectIds(
        await ids({ anyCategory: category }),
        all.filter((r) => everyError.get(r.id)?.has(`category:${category}`)),
        `anyCategory=${category}`,
      );
    }
    // The brief's case: a fail-fast run whose newest occurrence is a retried timeout is found by its crash.
    const fast = failed.find((r) => r.id.startsWith('scenario-') && r.lastErrorCode === 'RUNTIME_TIMEOUT' && r.endingCode === 'RUNTIME_CRASHED');
    expect(fast, 'a legacy fail-fast run').toBeDefined();
    expect(await ids({ status: ['failed'], code: 'RUNTIME_CRASHED' })).toContain(fast!.id);
  });
});
