import { formatAbsolute } from './format.js';

/**
 * What a screen says when what it shows may no longer be so: a read it made failed while it kept
 * the data of an earlier one (a filter chosen with the server stopped), or the live stream is
 * down, so nothing tells it of changes. Always with the time the data dates from.
 */

export interface StaleFacts {
  /** Wall time the live stream dropped at; null while it is up. */
  downSince: number | null;
  /** The screen's last read failed and it kept the data of the one before, read at `loadedAt`. */
  failed: { error: string; loadedAt: number | null } | null;
  /** What the kept data is, when it is not what the screen was asked for ("Last 24 hours"). */
  showing?: string | null;
}

/** "14:03:12" today, "2026-11-24 14:03" on another day. */
export function clockTime(ts: number, now: number): string {
  const text = formatAbsolute(ts);
  return text.slice(0, 10) === formatAbsolute(now).slice(0, 10) ? text.slice(11, 19) : text.slice(0, 16);
}

/** The sentence, or null when the screen is up to date. */
export function staleWords(facts: StaleFacts, now: number): string | null {
  const { failed, downSince } = facts;
  if (failed) {
    const what = facts.showing ? `showing ${facts.showing} ` : 'showing what was ';
    const when = failed.loadedAt !== null ? `read at ${clockTime(failed.loadedAt, now)}` : 'read before';
    return `Out of date: ${what}${when}; refreshing failed (${failed.error}).`;
  }
  if (downSince !== null) return `Out of date: not live since ${clockTime(downSince, now)}; what this screen shows may have changed since.`;
  return null;
}
