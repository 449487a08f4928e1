import { afterEach, describe, expect, it } from 'vitest';
import { HANDLED_KEY, openSqliteStore, UNHANDLED_KEY, type SqliteStore } from './index.js';
import { JournalBuilder } from './testing/journal-builder.js';

/**
 * Handled vs unhandled errors as the rollups and groups count them (their disposition, migration
 * 10: docs/semantics.md F3; failure-model.test.ts pins how each is settled). And a group's first /
 * last seen are over all time, whatever window its counts are for.
 */

const T0 = Date.UTC(2026, 2, 10, 9, 30);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TIMEOUT = { code: 'RUNTIME_TIMEOUT', origin: 'runtime:fake', message: 'timed out after 100ms' } as const;

let store: SqliteStore;
afterEach(() => store?.close());

/** Two retried timeouts then an unhandled one that fails the run; a caught timeout in another run. */
function journals(start: number): JournalBuilder[] {
  const failed = new JournalBuilder(`failed-${start}`, { start, flow: 'flows/a.prose', flowName: 'a' })
    .start()
    .runStep([{ name: 'flaky', attempts: [TIMEOUT, TIMEOUT, TIMEOUT] }])
    .fail();
  const caught = new JournalBuilder(`caught-${start}`, { start: start + 60_000, flow: 'flows/b.prose', flowName: 'b' })
    .start()
    .runStep([{ name: 'guarded', attempts: [TIMEOUT], caught: true }])
    .complete();
  return [failed, caught];
}

function open(starts: number[]): void {
  store = openSqliteStore({ path: ':memory:' });
  for (const start of starts) for (const j of journals(start)) store.appendEvents(j.events);
}

describe('handled and unhandled errors', () => {
  it('are counted apart in the rollups, for any window and filter', () => {
    open([T0]);
    const byHandled = (query: object = {}): Record<string, number> =>
      Object.fromEntries(store.errorCounts({ by: 'handled', ...query }).map((c) => [c.key, c.count]));
    // failed run: 2 retried (handled) + 1 that failed it; caught run: 1 caught (handled).
    expect(byHandled()).toEqual({ [HANDLED_KEY]: 3, [UNHANDLED_KEY]: 1 });
    // A window with partial minutes at both edges reads the errors table for them: same split.
    expect(byHandled({ since: T0 + 5, until: T0 + DAY + 7 })).toEqual({ [HANDLED_KEY]: 3, [UNHANDLED_KEY]: 1 });
    expect(byHandled({ flow: 'b' })).toEqual({ [HANDLED_KEY]: 1 });
    expect(store.errorCounts({ by: 'flow', disposition: 'unhandled' }).map((c) => [c.key, c.count])).toEqual([['flows/a.prose', 1]]);
    const series = store.errorSeries({ bucket: 'day', stackBy: 'code', since: T0 - DAY, until: T0 + DAY, disposition: 'handled' });
    expect(series.series.map((s) => [s.key, s.total])).toEqual([['RUNTIME_TIMEOUT', 3]]);
    expect(() => store.errorCounts({ by: 'handled', disposition: 'yes' as never })).toThrow('disposition must be one of pending, handled, unhandled');
  });

  it('are counted apart in groups, from the all-time table and from a window', () => {
    open([T0]);
    const [all] = store.errorGroups();
    expect([all!.count, all!.unhandled]).toEqual([4, 1]);
    const [windowed] = store.errorGroups({ since: T0 - HOUR, until: T0 + HOUR });
    expect([windowed!.count, windowed!.unhandled]).toEqual([4, 1]);
    expect(store.errorGroups({ disposition: 'unhandled' }).map((g) => [g.count, g.unhandled])).toEqual([[1, 1]]);
    expect(store.errorGroups({ disposition: 'handled', since: 0 }).map((g) => [g.count, g.unhandled])).toEqual([[3, 0]]);
    // All time too: error_groups cannot split handled from pending, so the trend tables answer.
    expect(store.errorGroups({ disposition: 'handled' }).map((g) => [g.count, g.unhandled])).toEqual([[3, 0]]);
    expect(store.errorGroups({ flow: 'b', since: 0 }).map((g) => [g.count, g.unhandled])).toEqual([[1, 0]]);
  });

  it('prune subtracts both counts and keeps every aggregate exact', () => {
    store = openSqliteStore({ path: ':memory:', now: () => T0 + 30 * DAY });
    for (const start of [T0, T0 + 29 * DAY]) for (const j of journals(start)) store.appendEvents(j.events);
    store.prune({ olderThanMs: 10 * DAY });
    const [group] = store.errorGroups();
    expect([group!.count, group!.unhandled]).toEqual([4, 1]);
    expect(store.verifyAggregates().diffs).toEqual([]);
  });
});

describe('first seen of a group', () => {
  it('is its first member over all time, not the first in the window', () => {
    open([T0, T0 + 3 * DAY]);
    const [group] = store.errorGroups({ since: T0 + 2 * DAY, until: T0 + 4 * DAY });
    expect(group!.count).toBe(4);
    expect(group!.firstSeen).toBeLessThan(T0 + HOUR);
    expect(group!.lastSeen).toBeGreaterThan(T0 + 3 * DAY);
  });

  it('sparklines of several groups come from one read of the trend tables', () => {
    open([T0, T0 + 3 * DAY]);
    const fingerprint = store.errorGroups()[0]!.fingerprint;
    const { buckets, trends } = store.groupTrends({ fingerprints: [fingerprint, 'none'], grain: 'day', since: T0 - DAY, until: T0 + 4 * DAY });
    expect(buckets.length).toBe(6);
    expect(trends.get(fingerprint)).toEqual([0, 4, 0, 0, 4, 0]);
    expect(trends.get('none')).toEqual([0, 0, 0, 0, 0, 0]);
    const unhandled = store.groupTrends({ fingerprints: [fingerprint], grain: 'day', since: T0 - DAY, until: T0 + 4 * DAY, disposition: 'unhandled' });
    expect(unhandled.trends.get(fingerprint)).toEqual([0, 1, 0, 0, 1, 0]);
  });
});
