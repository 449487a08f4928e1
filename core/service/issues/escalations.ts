import type { HivewatchStore } from '../../store/index.js';
import type { IssueEscalation } from '../api-issues.js';
import { escalationWords, forecastHour, forecastWindow, type HourCount } from './forecast.js';

/**
 * Each issue's last hour against its forecast (forecast.ts), from rollups: the last hour
 * as the issue facts count it (the group trends and the edges, store/issues/issue-facts.ts), the week's
 * hours from the group count table of migration 20. A forecast is worked out for the issues whose last hour had any
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
  store: HivewatchStore,
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
  const { buckets, trends } = await store.groupTrends({ fingerprints: asked, grain: 'hour', since: window.since, until: window.until });
  for (const fp of asked) {
    const counts = trends.get(fp) ?? [];
    const history: HourCount[] = [];
    counts.forEach((count, i) => {
      if (count > 0) history.push({ start: buckets[i] as number, count });
    });
    const forecast = forecastHour(history, window.day);
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
