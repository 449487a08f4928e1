/**
 * An issue's forecast for an hour: the most occurrences its own last week says an hour may hold;
 * more than that in the last hour and the issue is escalating. Sentry's escalating-issues
 * algorithm (getsentry/sentry, src/sentry/issues/escalating/escalating_issues_alg.py
 * `generate_issue_forecast`; escalating_group_forecast.py's one-event forecast of 10; docs:
 * "Escalating Issues Algorithm"), computed per hour from the rollups instead of once a day into
 * a store. docs/triage.md "Escalating is a forecast" gives the rule in words and an example.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The week before the hour: the history a forecast is made from. */
export const FORECAST_HOURS = 7 * 24;

/** Sentry's standard thresholds (`ThresholdVariables` standard_version). */
const STD_MULTIPLIER = 5;
const MIN_SPIKE_MULTIPLIER = 5;
const MAX_SPIKE_MULTIPLIER = 8;
const MIN_BURSTY_MULTIPLIER = 2;
const MAX_BURSTY_MULTIPLIER = 5;
/** An issue not seen every hour of its week may reach 10 × its busiest hour; one not seen at all, 10. */
const SPARSE_MULTIPLIER = 10;

/** One whole hour of the history with occurrences (an hour without any is not listed). */
export interface HourCount {
  start: number;
  count: number;
}

type ForecastBasis = 'quiet' | 'sparse' | 'steady';

export interface Forecast {
  /** An hour with more occurrences than this is escalating. */
  limit: number;
  /**
   * quiet: no occurrence in the week (Sentry's one-event forecast: 10); sparse: seen in fewer than
   * every one of its 168 hours (10 × its busiest hour); steady: seen every hour (the statistics below).
   */
  basis: ForecastBasis;
  /** Hours of the week with occurrences, the busiest one's count, and their mean and sample standard deviation. */
  hours: number;
  max: number;
  mean: number;
  stdDev: number;
}

const clamp = (value: number, lo: number, hi: number): number => Math.min(Math.max(value, lo), hi);

/** Sample standard deviation (n − 1), as Python's `statistics.stdev`. */
function sampleStdDev(values: readonly number[], mean: number): number {
  if (values.length < 2) return 0;
  const squares = values.reduce((sum, v) => sum + (v - mean) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

/**
 * The UTC weekday of a time, 0 for Sunday as `Date#getUTCDay`, by arithmetic: 1 January 1970 was
 * a Thursday (4). A forecast asks it for each of an issue's 168 hours, for every issue seen in the
 * last hour, and a `Date` a time cost a cold Errors screen tens of milliseconds at 1,000,000 errors.
 */
export const weekday = (ts: number): number => (((Math.floor(ts / DAY) + 4) % 7) + 7) % 7;

/**
 * The forecast for an hour of the day that starts at `day` (UTC), from the hours of the week
 * before with occurrences (`history`: each at most once, zero hours left out, as the hourly
 * counts Sentry reads list only hours with events):
 *  - none: 10;
 *  - fewer than 168 hours: 10 × the busiest hour;
 *  - all 168: the larger of (a) the busiest hour × a multiplier from 2 to 5 that falls as the
 *    week varies more (5·e^(−0.65·cv), cv the standard deviation over the mean) and (b) the
 *    weighted mean of the hours (an hour on the same weekday as `day` counts twice) plus 5 to 8
 *    times the mean ((mean + 5·sd) / mean, within [5, 8]); rounded down.
 */
export function forecastHour(history: readonly HourCount[], day: number): Forecast {
  const counts: number[] = [];
  let max = 0;
  let sum = 0;
  for (const h of history) {
    if (h.count <= 0) continue;
    counts.push(h.count);
    max = Math.max(max, h.count);
    sum += h.count;
  }
  if (counts.length === 0) return { limit: SPARSE_MULTIPLIER, basis: 'quiet', hours: 0, max: 0, mean: 0, stdDev: 0 };
  const mean = sum / counts.length;
  const stdDev = sampleStdDev(counts, mean);
  const figures = { hours: counts.length, max, mean, stdDev };
  if (counts.length < FORECAST_HOURS) return { limit: SPARSE_MULTIPLIER * max, basis: 'sparse', ...figures };
  const cv = stdDev / mean;
  const bursty = clamp(5 * Math.exp(-0.65 * cv), MIN_BURSTY_MULTIPLIER, MAX_BURSTY_MULTIPLIER);
  const fromPeak = max * bursty;
  const spike = clamp((mean + STD_MULTIPLIER * stdDev) / mean, MIN_SPIKE_MULTIPLIER, MAX_SPIKE_MULTIPLIER);
  const today = weekday(day);
  let weighted = 0;
  let weights = 0;
  for (const h of history) {
    if (h.count <= 0) continue;
    const w = weekday(h.start) === today ? 2 : 1;
    weighted += h.count * w;
    weights += w;
  }
  const fromMean = weighted / weights + spike * mean;
  return { limit: Math.floor(Math.max(fromPeak, fromMean)), basis: 'steady', ...figures };
}

/**
 * The window a forecast reads: the 168 whole hours before the hour that holds the start of the
 * last hour (so the last hour is never part of its own history), and the day it is made for.
 */
export function forecastWindow(now: number): { since: number; until: number; day: number } {
  const until = Math.floor((now - HOUR) / HOUR) * HOUR;
  return { since: until - FORECAST_HOURS * HOUR, until, day: Math.floor(now / DAY) * DAY };
}

/** What an escalation reads as: "41 in the last hour, over its forecast of 6". */
export function escalationWords(lastHour: number, forecast: Forecast): string {
  const basis =
    forecast.basis === 'quiet'
      ? 'no occurrence in the week before: 10'
      : forecast.basis === 'sparse'
        ? `seen in ${forecast.hours} of the week's 168 hours, the busiest with ${forecast.max}: 10 × ${forecast.max}`
        : `seen every hour of the week, mean ${forecast.mean.toFixed(1)}, busiest ${forecast.max}`;
  return `${lastHour} in the last hour, over its forecast of ${forecast.limit} (${basis})`;
}
