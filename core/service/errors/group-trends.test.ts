import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ErrorCode } from '../../base/errors/taxonomy.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { withTrends } from './group-trends.js';
import { errorGroup } from '../mapping.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
let store: HivewatchStore;
afterEach(async () => await store?.close());

/** One failed run per entry, its timeout error at T0 + hour h. */
async function errorsAt(hours: readonly number[], code: ErrorCode = 'RUNTIME_TIMEOUT', prefix = 'run'): Promise<void> {
  for (const [i, h] of hours.entries()) {
    const b = new JournalBuilder(`${prefix}-${code}-${i}`, { start: T0 + h * HOUR, tick: 1 }).start();
    b.runStep([{ attempts: [{ code, origin: code.startsWith('AGENT') ? 'agent:coder' : 'runtime:fake', message: 'took too long' }] }]).fail();
    await store.appendEvents(b.events);
  }
}

describe('group sparklines from the rollups', () => {
  it('bins every group of a window in one read, each error in the bin its hour falls in', async () => {
    store = await openStore({ path: ':memory:', recover: false, now: () => T0 + 48 * HOUR });
    await errorsAt([0, 1, 1, 5, 11]);
    await errorsAt([6, 6], 'AGENT_NO_CHANGES');
    const groups = (await store.errorGroups({ since: T0, until: T0 + 12 * HOUR })).map(errorGroup);
    expect(groups).toHaveLength(2);
    const trends = await withTrends(store, groups, { since: T0, until: T0 + 12 * HOUR }, 6);
    const byCode = Object.fromEntries(trends.map((g) => [g.code, g.trend]));
    // Six bins of two hours: hours 0-1 | 2-3 | 4-5 | 6-7 | 8-9 | 10-11.
    expect(byCode.RUNTIME_TIMEOUT).toEqual([3, 0, 1, 0, 0, 1]);
    expect(byCode.AGENT_NO_CHANGES).toEqual([0, 0, 0, 2, 0, 0]);
  });

  it('bins a window shorter than an hour per bin from the errors themselves', async () => {
    store = await openStore({ path: ':memory:', recover: false, now: () => T0 + 48 * HOUR });
    const MIN = 60_000;
    await errorsAt([0, 0.1, 0.1, 0.5, 0.9]);
    const groups = (await store.errorGroups({ since: T0, until: T0 + HOUR })).map(errorGroup);
    const [only] = await withTrends(store, groups, { since: T0, until: T0 + 60 * MIN }, 4);
    // Four bins of 15 minutes: minutes 0, 6, 6 | – | 30 | 54.
    expect(only?.trend).toEqual([3, 0, 1, 1]);
  });

  it('runs a window open at its end to now and bins it by the hour rollups, whenever the last error came', async () => {
    const now = T0 + 48 * HOUR;
    store = await openStore({ path: ':memory:', recover: false, now: () => now });
    await errorsAt([24.5, 30.5, 40.5]);
    const filter = { since: now - 24 * HOUR };
    const [only] = await withTrends(store, (await store.errorGroups(filter)).map(errorGroup), filter, 24, now);
    // One bin an hour from since: hours 24, 30 and 40 of the history; nothing in the last 7 hours.
    const expected = new Array<number>(24).fill(0);
    for (const bin of [0, 6, 16]) expected[bin] = 1;
    expect(only?.trend).toEqual(expected);
  });

  it('reads the screen’s last 24 h (since = the end of this minute less a day) from the hour rollups, not from every error of the day', async () => {
    // Mid-minute, as a window is opened: the screen's `since` is a minute boundary, so the
    // window to the server's own now fell a few seconds short of 24 bins of an hour.
    const now = T0 + 48 * HOUR + 20_000;
    store = await openStore({ path: ':memory:', recover: false, now: () => now });
    await errorsAt([24.5, 30.5, 47.5]);
    const filter = { since: T0 + 48 * HOUR + 60_000 - 24 * HOUR };
    const bins = vi.spyOn(store, 'groupBins');
    const [only] = await withTrends(store, (await store.errorGroups(filter)).map(errorGroup), filter, 24, now);
    expect(bins.mock.calls.map(([query]) => query.grain)).toEqual(['hour']);
    const expected = new Array<number>(24).fill(0);
    for (const bin of [0, 6, 23]) expected[bin] = 1;
    expect(only?.trend).toEqual(expected);
  });

  it('spans an open window from the groups’ first to last error, and returns no groups unchanged', async () => {
    store = await openStore({ path: ':memory:', recover: false, now: () => T0 + 48 * HOUR });
    await errorsAt([2, 3, 9]);
    const groups = (await store.errorGroups({})).map(errorGroup);
    const [only] = await withTrends(store, groups, {}, 4);
    expect(only?.trend?.reduce((a, b) => a + b, 0)).toBe(3);
    expect(only?.trend?.[0]).toBeGreaterThan(0);
    expect(only?.trend?.[3]).toBeGreaterThan(0);
    expect(await withTrends(store, [], {}, 4)).toEqual([]);
  });

  it('plans the window inside sane bounds whatever the rows hold: a group also seen in 2300 or 1938 still gets its sparkline', async () => {
    const now = T0 + 48 * HOUR;
    store = await openStore({ path: ':memory:', recover: false, now: () => now });
    await errorsAt([2, 3, 9]);
    // The same error (one group) journaled in 2300 and in 1938, as an older ingest could have.
    const YEAR_2300_HOURS = (Date.UTC(2300, 0, 1) - T0) / HOUR;
    const YEAR_1938_HOURS = (-1e12 - T0) / HOUR;
    await errorsAt(
      [YEAR_2300_HOURS, YEAR_1938_HOURS].map((h) => Math.round(h)),
      'RUNTIME_TIMEOUT',
      'stored',
    );
    for (const filter of [{}, { since: T0 }, { since: now - 24 * HOUR }, { since: 0, until: 8.64e15 }]) {
      const groups = (await store.errorGroups(filter)).map(errorGroup);
      expect(groups, JSON.stringify(filter)).toHaveLength(1);
      const [only] = await withTrends(store, groups, filter, 24, now);
      expect(only?.trend, JSON.stringify(filter)).toHaveLength(24);
    }
    // Open: from the first sane error to a day after now; the three errors of T0's day are in it.
    const [open] = await withTrends(store, (await store.errorGroups({})).map(errorGroup), {}, 24, now);
    expect(open?.trend?.reduce((a, b) => a + b, 0)).toBe(3);
  });
});
