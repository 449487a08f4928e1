import type { HivewatchStore } from '../../store/index.js';
import type { ErrorFilter, ErrorGroup } from '../api.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Sparklines are drawn from 2000-01-01 on (stored rows may hold any time). */
const TREND_TIME_MIN_MS = Date.UTC(2000, 0, 1);
/** …up to a day after now (telemetry dated later is not believed at ingest either). */
const TREND_FUTURE_MS = DAY;
/** At most this many day buckets are read for one sparkline (24 bins need far fewer; the store refuses 10,000). */
const MAX_TREND_DAYS = 5_000;

/**
 * The window the sparklines cover: the filter's (to now when only its start is set), or the
 * groups' own first..last seen when open,
 * planned inside sane bounds whatever the rows hold (a group last seen in the year 2300 would
 * otherwise ask for ~100,000 day buckets, and every range of the Errors screen would fail).
 * Null when nothing of it lies inside.
 */
function trendWindow(groups: readonly ErrorGroup[], filter: ErrorFilter, now: number): { since: number; until: number } | null {
  const since = Math.max(filter.since ?? Math.min(...groups.map((g) => g.firstSeen)), TREND_TIME_MIN_MS);
  const lastSeen = Math.max(...groups.map((g) => g.lastSeen)) + 1;
  // A window open at its end ("the last 24 h") runs to now, as the page's other panels do: its
  // bins are whole hours of the rollups, not a raw read of every error of the day (~33k rows at
  // 1M errors) because the last error came a little before now. "Now" is the end of the current
  // minute: the screen steps its relative windows by the minute (its `since` is that end less
  // 24 h), and a window a few seconds short of 24 hours would be binned from the raw errors —
  // 331,480 of them at 10,000,000 errors, 0.8 s (docs/benches.md).
  const openEnd = filter.since !== undefined ? Math.max(Math.ceil(now / MINUTE) * MINUTE, lastSeen) : lastSeen;
  const until = Math.min(filter.until ?? openEnd, now + TREND_FUTURE_MS);
  if (!Number.isFinite(since) || !Number.isFinite(until) || until <= since) return null;
  return { since: Math.max(since, until - MAX_TREND_DAYS * DAY), until };
}

/**
 * Every group's sparkline in one read: the window (the filter's, or the groups' own first..last
 * seen when open) is read from the group rollups at hour grain when that is at most 2,000
 * buckets, else at day grain, each rollup bucket added to the bin its middle falls in (by the
 * store, which sends back only the bins). A window with less than an hour per bin (shorter than
 * `bins` hours) is binned from its errors instead (one indexed read), the rollups being no finer
 * than an hour.
 */
export async function withTrends(store: HivewatchStore, groups: ErrorGroup[], filter: ErrorFilter, bins: number, now = Date.now()): Promise<ErrorGroup[]> {
  if (groups.length === 0) return groups;
  const window = trendWindow(groups, filter, now);
  if (window === null) return groups.map((group) => ({ ...group, trend: new Array<number>(bins).fill(0) }));
  const { since, until } = window;
  const span = Math.max(1, until - since);
  // Less than an hour per bin: the rollups are too coarse, and the window's errors are few enough
  // to bin from themselves.
  const grain = span < bins * HOUR ? undefined : span / HOUR <= 2_000 ? 'hour' : 'day';
  const counts = await store.groupBins({
    fingerprints: groups.map((g) => g.fingerprint),
    since,
    until,
    bins,
    ...(grain !== undefined ? { grain } : {}),
    ...(filter.flow !== undefined ? { flow: filter.flow } : {}),
  });
  return groups.map((group) => ({ ...group, trend: counts.get(group.fingerprint) ?? new Array<number>(bins).fill(0) }));
}
