import type { RunSummary } from '../../core/service/api.js';
import { formatAbsolute } from '../lib/format.js';
import { formatResetCountdown, STOPPED_CONTINUES, stoppedSentence, waitingSentence } from '../lib/usage-limit.js';
import { useNow } from '../lib/use-now.js';

/**
 * A run waiting out a subscription usage limit: in the Runs list a badge,
 * in the run header the sentence with a live countdown. The countdown's words change once a
 * minute (renderer/lib/usage-limit.ts), so the header's polite live region speaks that often
 * at most. On a virtual clock the wait takes no real time: the reset is named, not counted down.
 */

/** The run's usage-limit wait, when it is one we show: a live run's (a cancelling one no longer waits). */
export function limitWaitOf(run: RunSummary): number | null {
  return run.status === 'running' && run.waitingUntil != null ? run.waitingUntil : null;
}

/**
 * The Runs list's badge: "limit resets in 12 min" (its title: the whole sentence). `external`: an
 * agent session stopped by its limit, which Hivewatch does not resume (its title says so).
 */
export function LimitWaitBadge({ at, clock, external = false }: { at: number; clock: RunSummary['clock']; external?: boolean }) {
  const now = Math.max(useNow(), Date.now());
  const title = external ? `${stoppedSentence(at, now)} (${formatAbsolute(at)}). ${STOPPED_CONTINUES}` : `${waitingSentence(at, now)} (${formatAbsolute(at)})`;
  return (
    <span className="badge limit-wait" title={title} data-testid="limit-wait">
      <span className="limit-icon" aria-hidden="true" />
      limit {clock === 'virtual' ? 'resets on a virtual clock' : formatResetCountdown(at, now)}
    </span>
  );
}

/** "resets in 12 min", live, with the reset's time of day on hover: the one countdown of a usage-limit wait. */
export function ResetCountdown({ at }: { at: number }) {
  const now = Math.max(useNow(), Date.now());
  return (
    <time dateTime={new Date(at).toISOString()} title={`the usage limit resets at ${formatAbsolute(at)}`}>
      {formatResetCountdown(at, now)}
    </time>
  );
}

/**
 * The run header's line: "Waiting for the usage limit to reset at 14:05 · resets in 12 min"; for
 * an external session "Stopped by the usage limit until 14:05 · resets in 12 min. It continues
 * when the agent sends telemetry again …".
 */
export function LimitWaitNotice({ at, clock, external = false }: { at: number; clock: RunSummary['clock']; external?: boolean }) {
  const now = Math.max(useNow(), Date.now());
  const sentence = external ? stoppedSentence(at, now) : waitingSentence(at, now);
  return (
    <p className="limit-wait-notice" role="status" aria-live="polite" data-testid="limit-wait-notice">
      <span className="limit-icon" aria-hidden="true" />
      <time dateTime={new Date(at).toISOString()} title={formatAbsolute(at)}>
        {sentence.charAt(0).toUpperCase() + sentence.slice(1)}
      </time>
      {clock === 'virtual' ? ' (a virtual clock: no real wait)' : ` · ${formatResetCountdown(at, now)}`}
      {external ? `. ${STOPPED_CONTINUES} Stop watching ends its run here.` : '. Cancel ends the wait at once.'}
    </p>
  );
}
