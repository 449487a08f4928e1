/**
 * Human-readable times and durations. Pure functions of their inputs (`now` is passed in), so
 * the UI can re-render them on a shared ticker and the tests can pin every threshold.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What `Date` can represent: ±8.64e15 ms around the epoch (ECMAScript's time value range). */
const MAX_TIME_VALUE = 8.64e15;

/**
 * Whether `ts` is a time a Date can show. Stored data may hold any number (an older version's
 * ingest, another writer), and `new Date(ts).toISOString()` throws outside this range: every
 * formatter here answers a label instead of throwing.
 */
export function isShowableTime(ts: number): boolean {
  return Number.isFinite(ts) && Math.abs(ts) <= MAX_TIME_VALUE;
}

/** The ISO form for a `<time dateTime>` attribute, or undefined for a time a Date cannot show. */
export function isoTime(ts: number): string | undefined {
  return isShowableTime(ts) ? new Date(ts).toISOString() : undefined;
}

/** "just now", "12s ago", "5 min ago", "3 h ago", "2 d ago"; "in 30s" for a time ahead. */
export function formatRelative(ts: number, now: number): string {
  if (!isShowableTime(ts)) return formatAbsolute(ts);
  const diff = now - ts;
  const ahead = diff < 0;
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 5 * SECOND) return ahead ? 'in a moment' : 'just now';
  if (abs < MINUTE) text = `${Math.floor(abs / SECOND)}s`;
  else if (abs < HOUR) text = `${Math.floor(abs / MINUTE)} min`;
  else if (abs < DAY) text = `${Math.floor(abs / HOUR)} h`;
  else if (abs < 60 * DAY) text = `${Math.floor(abs / DAY)} d`;
  else return formatAbsolute(ts).slice(0, 10);
  return ahead ? `in ${text}` : `${text} ago`;
}

/**
 * When something that already happened happened: like formatRelative, but a time ahead of `now`
 * (a virtual-clock run's own timestamps run ahead of the wall clock) reads "just now", never "in 3 min".
 */
export function formatPast(ts: number, now: number): string {
  if (!isShowableTime(ts)) return formatAbsolute(ts);
  return formatRelative(Math.min(ts, now), now);
}

type RunTimes = { clock: 'real' | 'virtual'; startedAt: number; endedAt: number | null; startedWall: number; endedWall: number | null };

/**
 * A run's duration on each clock: `real` (wall time; counting while it runs) and, for a
 * virtual-clock run, `virtual` (its own clock, which jumps over backoffs; "clock" while running).
 */
export function runDurationParts(run: RunTimes, now: number): { real: string; virtual: string | null } {
  if (run.clock !== 'virtual') return { real: formatDuration((run.endedAt ?? Math.max(now, run.startedAt)) - run.startedAt), virtual: null };
  const real = formatDuration(Math.max(0, (run.endedWall ?? Math.max(now, run.startedWall)) - run.startedWall));
  return { real, virtual: run.endedAt === null ? 'clock' : formatDuration(run.endedAt - run.startedAt) };
}

/** What a run's duration says in one line: a virtual-clock run shows its two clocks apart. */
export function formatRunDuration(run: RunTimes, now: number): string {
  const { real, virtual } = runDurationParts(run, now);
  return virtual === null ? real : `virtual ${virtual} · real ${real}`;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Local time, "2025-11-22 14:03:05.120": what a title attribute shows on hover ("invalid time (…)" when no Date can show it). */
export function formatAbsolute(ts: number): string {
  if (!isShowableTime(ts)) return `invalid time (${String(ts)})`;
  const d = new Date(ts);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}

/** A run or attempt duration: "0 ms", "850 ms", "12.3s", "4m 05s", "1h 02m", "3d 4h". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  if (ms < 10 * SECOND) return `${(Math.floor(ms / 100) / 10).toFixed(1)}s`;
  if (ms < MINUTE) return `${Math.floor(ms / SECOND)}s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m ${pad(Math.floor((ms % MINUTE) / SECOND))}s`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h ${pad(Math.floor((ms % HOUR) / MINUTE))}m`;
  return `${Math.floor(ms / DAY)}d ${Math.floor((ms % DAY) / HOUR)}h`;
}

/**
 * A backoff delay as the flow language writes it: "30s", "2m", "1m30s", "500ms", "1h".
 * Exact (no rounding beyond the millisecond), because it labels a journaled value.
 */
export function formatDelay(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms === 0) return '0s';
  if (ms < SECOND) return `${ms}ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['h', HOUR],
    ['m', MINUTE],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  // The seconds keep their milliseconds: a wait until a usage limit's reset is rarely whole
  // (3,562,568 ms is "59m22.568s", not "3562.568s").
  if (rest > 0) parts.push(`${rest / SECOND}s`);
  return parts.join('');
}

/** A countdown to `at`: "in 23s", "in 1m 05s", or "now" once due. */
export function formatCountdown(at: number, now: number): string {
  const left = at - now;
  if (left <= 0) return 'now';
  const seconds = Math.ceil(left / SECOND);
  if (seconds < 60) return `in ${seconds}s`;
  if (seconds < 3600) return `in ${Math.floor(seconds / 60)}m ${pad(seconds % 60)}s`;
  return `in ${Math.floor(seconds / 3600)}h ${pad(Math.floor((seconds % 3600) / 60))}m`;
}

/**
 * One formatter for every count on screen ("1,234"): `n.toLocaleString('en-US')` builds a new
 * formatter on each call (about 7 µs; a cold Errors screen spent 17 ms in it), this one is built once.
 */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** A count as the window shows it: "1,234" (en-US grouping, up to three decimals as toLocaleString). */
export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}

/** "1 run", "3 runs". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${formatCount(n)} ${n === 1 ? word : many}`;
}
