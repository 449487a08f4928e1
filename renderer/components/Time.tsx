import type { RunSummary } from '../../core/service/api.js';
import { formatAbsolute, formatCountdown, formatDuration, formatPast, formatRunDuration, isoTime, runDurationParts } from '../lib/format.js';
import { useNow } from '../lib/use-now.js';

/** "5 min ago" for something that happened (never "in 3 min"), with the exact local time on hover. */
export function RelativeTime({ ts }: { ts: number }) {
  const now = useNow();
  return (
    <time dateTime={isoTime(ts)} title={formatAbsolute(ts)}>
      {formatPast(ts, now)}
    </time>
  );
}

/**
 * A run's duration: on a virtual clock "virtual 3m 54s · real 0.9 s" (the run's own clock jumps
 * over backoffs; the real one is wall time); still counting while the run is active.
 */
export function RunDuration({ run, active, compact = false }: { run: RunSummary; active: boolean; compact?: boolean }) {
  const now = useNow();
  // A finished row without an end (a stale row) shows zero rather than a duration that grows.
  const shown = !active && run.endedAt === null ? { ...run, endedAt: run.startedAt, endedWall: run.startedWall } : run;
  const line = formatRunDuration(shown, now);
  const title =
    run.clock === 'virtual'
      ? `${line}: virtual is the run’s own clock, which jumps over every backoff; real is the wall-clock time it took`
      : active
        ? 'still running'
        : undefined;
  if (!compact || run.clock !== 'virtual') {
    return (
      <span title={title} data-clock={run.clock}>
        {line}
      </span>
    );
  }
  // A table cell: the real time, and the virtual one under it.
  const parts = runDurationParts(shown, now);
  return (
    <span className="run-duration" title={title} data-clock="virtual">
      <span>{parts.real}</span>
      <span className="cell-sub">virtual {parts.virtual}</span>
    </span>
  );
}

/** A duration; still counting while `end` is null. */
export function Duration({ start, end }: { start: number; end: number | null }) {
  return end === null ? <LiveDuration start={start} /> : <span>{formatDuration(end - start)}</span>;
}

function LiveDuration({ start }: { start: number }) {
  const now = useNow();
  return <span title="still running">{formatDuration(Math.max(0, now - start))}</span>;
}

/** "in 23s" until `at`, then "now". */
export function Countdown({ at }: { at: number }) {
  // The shared tick can be up to a second old when this mounts: never count from the past.
  const now = Math.max(useNow(), Date.now());
  return (
    <time dateTime={isoTime(at)} title={`next attempt at ${formatAbsolute(at)}`}>
      {formatCountdown(at, now)}
    </time>
  );
}
