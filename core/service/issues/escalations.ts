import type { IssueEscalation } from '../api-issues.js';
import { escalationWords, forecastHour, forecastWindow } from './forecast.js';
import type { ForecastHistory } from './forecast-history.js';

/**
 * Each issue's last hour against its forecast (forecast.ts), from rollups: the last hour
 * as the issue facts count it (the group trends and the edges, store/issues/issue-facts.ts), the week's
 * hours from the group count table of migration 20 (forecast-history.ts, which holds them while
 * nothing was committed). A forecast is worked out for the issues whose last hour had any
 * occurrence (a quiet hour exceeds no forecast), or for every issue asked with `always` (an
 * issue's page shows its forecast whatever its last hour).
 */

export interface Escalation {
  view: IssueEscalation;
  /** The figures in words when the last hour is over the forecast, else null. */
  words: string | null;
}

const quietHour = (lastHour: number): Escalation => ({
  view: { lastHour, forecast: null, basis: null, hours: 0, max: 0, mean: 0, over: false },
  words: null,
});

/** `lastHour`: each issue's occurrences in the last hour (issue facts); an issue not in it had none. */
export async function issueEscalations(
  history: ForecastHistory,
  fingerprints: readonly string[],
  lastHour: ReadonlyMap<string, number>,
  now: number,
  always = false,
): Promise<Map<string, Escalation>> {
  const out = new Map<string, Escalation>();
  if (fingerprints.length === 0) return out;
  const asked = fingerprints.filter((fp) => always || (lastHour.get(fp) ?? 0) > 0);
  for (const fp of fingerprints) out.set(fp, quietHour(lastHour.get(fp) ?? 0));
  if (asked.length === 0) return out;
  const window = forecastWindow(now);
  const weeks = await history.hours(asked, window);
  for (const fp of asked) {
    const forecast = forecastHour(weeks.get(fp) ?? [], window.day);
    const hour = lastHour.get(fp) ?? 0;
    const over = hour > forecast.limit;
    out.set(fp, {
      view: {
        lastHour: hour,
        forecast: forecast.limit,
        basis: forecast.basis,
        hours: forecast.hours,
        max: forecast.max,
        mean: Math.round(forecast.mean * 100) / 100,
        over,
      },
      words: over ? escalationWords(hour, forecast) : null,
    });
  }
  return out;
}
