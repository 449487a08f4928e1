import { DAY, HOUR } from '../../core/store/rollups/rollups.js';
import type { SqliteStore } from '../../core/store/sqlite/types.js';
import { prng } from '../../core/store/testing/journal-builder.js';
import type { Measurement } from '../harness/measure.js';
import { START, SPAN, now } from './store-workload.js';

/**
 * The store bench's second part (store.bench.ts): error counts by category and by origin over the
 * stored errors, each answer checked against a plain GROUP BY on the same connection, timed
 * against it.
 */

function percentileOf(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Untimed calls before each series, on windows apart from the timed ones. */
const WARMUP_CALLS = 200;

interface QueryTimes {
  store: number[];
  plain: number[];
}

export function countQueries(
  store: SqliteStore,
  by: 'category' | 'origin',
  windowMs: number,
  storeQueries: number,
  plainQueries: number,
  seed: number,
): QueryTimes {
  const random = prng(seed);
  const windows = Array.from({ length: storeQueries }, () => {
    const until = START + 8 * DAY + Math.floor(random() * (SPAN - 8 * DAY));
    return { since: until - windowMs, until };
  });
  // Warm-up windows lie in the history's first day, before any timed window starts (day 1 at
  // the earliest): 12 to 18 hours each, so they take the same path (whole hours, minute edges,
  // raw edges) and warm its code without reading the timed windows' rows. The warm-up used to
  // be the first 10 timed windows themselves: it primed rows it then timed.
  const warmups = Array.from({ length: WARMUP_CALLS }, () => {
    const since = START + Math.floor(random() * 6 * HOUR);
    return { since, until: since + 12 * HOUR + Math.floor(random() * 6 * HOUR) };
  });
  const plain = store.database.prepare(`SELECT ${by}, COUNT(*) AS n FROM errors WHERE ts BETWEEN ? AND ? GROUP BY ${by}`);
  const times: QueryTimes = { store: [], plain: [] };
  const expected = new Map<number, string>();
  const canonical = (pairs: [string, number][]): string => JSON.stringify(pairs.sort((a, b) => (a[0] < b[0] ? -1 : 1)));

  for (const w of warmups) store.errorCounts({ by, since: w.since, until: w.until });
  windows.forEach((w, i) => {
    const t = now();
    const rows = store.errorCounts({ by, since: w.since, until: w.until });
    times.store.push(now() - t);
    expected.set(i, canonical(rows.map((r) => [r.key, r.count])));
  });
  for (const w of warmups.slice(0, 3)) plain.all(w.since, w.until - 1);
  windows.slice(0, plainQueries).forEach((w, i) => {
    const t = now();
    const rows = plain.all(w.since, w.until - 1) as Record<string, unknown>[];
    times.plain.push(now() - t);
    const got = canonical(rows.map((r) => [String(r[by]), Number(r.n)]));
    if (got !== expected.get(i))
      throw new Error(`error counts by ${by} differ from a plain GROUP BY for [${w.since}, ${w.until}): ${expected.get(i)} vs ${got}`);
  });
  times.store.sort((a, b) => a - b);
  times.plain.sort((a, b) => a - b);
  return times;
}

/**
 * The full form's targets, at 1,000,000 errors: the p95 an operator waits, and the typical query
 * against a plain GROUP BY's (p50/p50), which says the rollups answer it. The tails' ratio
 * (p95/p95) is printed, not judged: it is lowest for whichever series runs first (18–19× for
 * category first, 20.4× for origin first and 24.5× for origin measured again after it), so it
 * judged the run's order, not the store (docs/benches.md, "Error counts").
 */
const P95_TARGET_MS = 5;
const RATIO_TARGET = 20;
/**
 * The quick form's bounds (100,000 errors, what CI runs beside other work; docs/benches.md "Quick
 * forms"): a p95 that holds when a neighbour deschedules a query, and the store's p50 at least
 * QUICK_RATIO times faster than the plain GROUP BY's on the same windows — a ratio of one run,
 * so the load falls on both. A count that lost its rollups and scans the errors reads about 1×.
 */
const QUICK_P95_MS = 25;
const QUICK_RATIO = 3;

export function queryMeasurement(by: string, windowLabel: string, errors: number, t: QueryTimes, quick: boolean): Measurement {
  const p50 = percentileOf(t.store, 50);
  const p95 = percentileOf(t.store, 95);
  const plain50 = percentileOf(t.plain, 50);
  const plain95 = percentileOf(t.plain, 95);
  const ratio = plain50 / p50;
  const tailRatio = plain95 / p95;
  return {
    name: `error counts by ${by}, ${windowLabel} window, ${errors} errors: p95`,
    value: p95,
    unit: 'ms',
    baseline: plain50,
    ratio,
    target: quick
      ? `p95 ≤ ${QUICK_P95_MS} ms and p50 ≥ ${QUICK_RATIO}× faster than a plain GROUP BY (--quick; ${P95_TARGET_MS} ms and ${RATIO_TARGET}× at 1,000,000 errors)`
      : `p95 ≤ ${P95_TARGET_MS} ms and p50 ≥ ${RATIO_TARGET}× faster than a plain GROUP BY`,
    pass: quick ? p95 <= QUICK_P95_MS && ratio >= QUICK_RATIO : p95 <= P95_TARGET_MS && ratio >= RATIO_TARGET,
    note:
      `store p50 ${p50.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms, max ${(t.store[t.store.length - 1] ?? 0).toFixed(3)} ms (${t.store.length} queries); ` +
      `plain GROUP BY p50 ${plain50.toFixed(2)} ms, p95 ${plain95.toFixed(2)} ms (${t.plain.length} queries); ` +
      `ratio p50/p50 ${ratio.toFixed(1)}×, p95/p95 ${tailRatio.toFixed(1)}×`,
  };
}
