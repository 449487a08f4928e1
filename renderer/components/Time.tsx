import { formatAbsolute, formatCountdown, formatDuration, formatRelative } from '../lib/format.js';
import { useNow } from '../lib/use-now.js';

/** "5 min ago", with the exact local time on hover. */
export function RelativeTime({ ts }: { ts: number }) {
  const now = useNow();
  return (
    <time dateTime={new Date(ts).toISOString()} title={formatAbsolute(ts)}>
      {formatRelative(ts, now)}
    </time>
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
    <time dateTime={new Date(at).toISOString()} title={`next attempt at ${formatAbsolute(at)}`}>
      {formatCountdown(at, now)}
    </time>
  );
}
