/**
 * The words of a usage-limit wait: "waiting for the usage limit to reset at
 * 14:05" and "resets in 12 min". The countdown moves in whole minutes, so a screen reader told
 * of each change (aria-live polite) hears it at most once a minute, never every second.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The reset's wall-clock time in the window's zone: "14:05", with the date when not within a day. */
export function formatResetTime(at: number, now: number): string {
  const date = new Date(at);
  const time = date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  if (Math.abs(at - now) < DAY) return time;
  return `${date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${time}`;
}

/** Whole minutes left, rounded up: "resets in 12 min", "resets in 1 h 05 min", "resets in less than a minute", "resets now". */
export function formatResetCountdown(at: number, now: number): string {
  const left = at - now;
  if (left <= 0) return 'resets now';
  if (left < MINUTE) return 'resets in less than a minute';
  const minutes = Math.ceil(left / MINUTE);
  if (minutes < 60) return `resets in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `resets in ${hours} h` : `resets in ${hours} h ${String(rest).padStart(2, '0')} min`;
}

/** The one sentence of the state, as the run header and the list's title say it. */
export function waitingSentence(at: number, now: number): string {
  return `waiting for the usage limit to reset at ${formatResetTime(at, now)}`;
}

/**
 * The state of an external session stopped by its usage limit: Hivewatch did not
 * start the agent and cannot resume it, so the words say what happens instead.
 */
export function stoppedSentence(at: number, now: number): string {
  return `stopped by the usage limit until ${formatResetTime(at, now)}`;
}

/** What follows the stop of an external session: it goes on when its agent does. */
export const STOPPED_CONTINUES =
  'It continues when the agent sends telemetry again (you resume it, or the CLI waits for the reset itself); Hivewatch cannot restart it.';
