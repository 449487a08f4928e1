import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import type { GroupTrendsQuery } from '../../store/queries/groups.js';
import { testEngines } from '../../store/testing/engines.js';
import { retriedRun as retried } from '../../store/testing/retried-run.js';
import { forecastWindow } from './forecast.js';
import { ForecastHistory } from './forecast-history.js';

/**
 * A forecast's week is read once for a screen's reads and never held past a change: a commit of
 * this process, another connection's commit, or the next hour reads it afresh. On every engine.
 */

const { engines, start, stop } = testEngines('forecast-history');
beforeAll(start, 60_000);
afterAll(stop);

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 12);
const NOW = T0 + 8 * 24 * HOUR + 30 * 60_000;

/** The store, with the trend reads it answers written down. */
function watched(store: HivewatchStore): { store: HivewatchStore; reads: GroupTrendsQuery[] } {
  const reads: GroupTrendsQuery[] = [];
  const proxy = new Proxy(store, {
    get(target, key) {
      if (key === 'groupTrends')
        return (query: GroupTrendsQuery) => {
          reads.push(query);
          return target.groupTrends(query);
        };
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, reads };
}

const total = (hours: readonly { count: number }[] | undefined): number => (hours ?? []).reduce((n, h) => n + h.count, 0);

describe.each(engines)('the forecast history on $name', (engine) => {
  const open: HivewatchStore[] = [];
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  async function seeded(): Promise<{ path: string; store: HivewatchStore; fingerprint: string }> {
    const path = await engine.fresh();
    const store = await openStore({ path, now: () => NOW });
    open.push(store);
    // 2 an hour, every hour of the eight days before.
    await store.appendEvents(Array.from({ length: 8 * 24 }, (_, h) => retried(`run-${h}`, T0 + h * HOUR + 60_000, 2)).flat());
    const [group] = await store.errorGroups({ limit: 1 });
    return { path, store, fingerprint: group!.fingerprint };
  }

  it('reads a week once for every read of it, and only the fingerprints it has not read', async () => {
    const { store: plain, fingerprint } = await seeded();
    const { store, reads } = watched(plain);
    const history = new ForecastHistory(store);
    const week = forecastWindow(NOW);
    const first = await history.hours([fingerprint], week);
    expect(first.get(fingerprint)).toHaveLength(168);
    expect(total(first.get(fingerprint))).toBe(2 * 168);
    expect((await history.hours([fingerprint], week)).get(fingerprint)).toEqual(first.get(fingerprint));
    expect(reads).toHaveLength(1);
    // A fingerprint with nothing in the week: read once, then held as "no hours".
    expect((await history.hours([fingerprint, 'ffff0000'], week)).get('ffff0000')).toEqual([]);
    expect(reads.map((r) => r.fingerprints)).toEqual([[fingerprint], ['ffff0000']]);
    await history.hours([fingerprint, 'ffff0000'], week);
    expect(reads).toHaveLength(2);
  });

  it('reads afresh after a commit of this process, after another connection’s, and for the next hour’s week', async () => {
    const { path, store: plain, fingerprint } = await seeded();
    const { store, reads } = watched(plain);
    const history = new ForecastHistory(store);
    const week = forecastWindow(NOW);
    expect(total((await history.hours([fingerprint], week)).get(fingerprint))).toBe(336);

    // A late occurrence inside the week, committed here.
    await store.appendEvents(retried('late-here', T0 + 5 * 24 * HOUR + 120_000, 1));
    expect(total((await history.hours([fingerprint], week)).get(fingerprint))).toBe(337);

    // Another, committed by another connection to the same database.
    const other = await openStore({ path, now: () => NOW });
    open.push(other);
    await other.appendEvents(retried('late-there', T0 + 6 * 24 * HOUR + 120_000, 1));
    expect(total((await history.hours([fingerprint], week)).get(fingerprint))).toBe(338);
    expect(reads).toHaveLength(3);

    // The next hour's week: read afresh, an hour of the first day out and one more hour in.
    const next = forecastWindow(NOW + HOUR);
    expect((await history.hours([fingerprint], next)).get(fingerprint)?.[0]?.start).toBe(next.since);
    expect(reads).toHaveLength(4);
  });

  it('stops listening to the store once closed', async () => {
    const { store } = await seeded();
    let listening = 0;
    const counted = new Proxy(store, {
      get(target, key) {
        if (key !== 'subscribe') return Reflect.get(target, key) as unknown;
        return (listener: Parameters<HivewatchStore['subscribe']>[0]) => {
          listening += 1;
          const stop = target.subscribe(listener);
          return () => {
            listening -= 1;
            stop();
          };
        };
      },
    });
    const history = new ForecastHistory(counted);
    expect(listening).toBe(1);
    history.close();
    expect(listening).toBe(0);
  });
});
