/**
 * Subscription usage limits as the agent CLIs word them, and the reset time they give.
 *
 * Claude Code: `Claude AI usage limit reached|<epoch seconds>` (older releases), `5-hour limit
 * reached ∙ resets 3pm`, `You've reached your session limit · resets 3pm (Europe/Copenhagen)`,
 * `Your limit will reset at 1pm (Etc/GMT+5)`. Codex: `You've hit your usage limit. … try again
 * in 3 days 6 hours 57 minutes.` or `… try again at 3:28 PM.` or `… try again at Aug 8th, 2026
 * 12:30 PM.` (docs/presets.md lists the sources; fixtures/ holds examples).
 *
 * Parsing never reads the clock: a relative or wall-clock reset time is resolved against the
 * `now` it is given — the instant the CLI printed the text (its attempt's end), never a later
 * clock — in the given time zone when the text names none (the CLI printed its local time, and
 * it ran on this machine).
 *
 * Both CLIs print a reset to the minute ("try again at 10:28 PM" for a reset at 22:28:40), so a
 * time given to the minute means the END of that minute: retrying at its start fails again. A
 * time of day is the next occurrence after the text was printed, except that one at most
 * PASSED_TODAY_MS before it is today's (the reset is passing as the CLI speaks, or this machine's
 * clock runs ahead of the provider's), never tomorrow's.
 */

export interface ResetClock {
  /** Epoch ms the reset text is read against; without it only absolute reset times resolve. */
  now?: number | undefined;
  /** IANA zone of a wall-clock time that names none; default UTC. */
  timeZone?: string | undefined;
}

export interface UsageLimit {
  /** Epoch ms the limit resets at, or null when the text gives none we can read. */
  resetAt: number | null;
  /** The line of the text that reports the limit, as the CLI wrote it (bounded): what the journal keeps beside `resetAt`. */
  reported: string;
}

/** The longest reported line kept: a usage-limit notice is one sentence; a longer line is not read whole by anyone. */
const REPORTED_MAX_CHARS = 300;

/** The first line of a text that names a usage limit, trimmed and bounded. */
function reportedLine(text: string): string {
  const line = text.split('\n').find((l) => USAGE_LIMIT.test(l)) ?? text;
  return line.trim().slice(0, REPORTED_MAX_CHARS);
}

const USAGE_LIMIT = /\busage limit\b|\b(?:session|5-hour|five-hour|weekly|daily|opus|sonnet) limit\b|\bhit your (?:usage )?limit\b/i;

/** Whether a CLI's words say a subscription usage limit was reached. */
export function isUsageLimitText(text: string): boolean {
  return USAGE_LIMIT.test(text);
}

/** The usage limit a text reports, with its reset time when one is given; null when it reports none. */
export function parseUsageLimit(text: string, clock: ResetClock = {}): UsageLimit | null {
  if (!isUsageLimitText(text)) return null;
  return { resetAt: parseResetTime(text, clock), reported: reportedLine(text) };
}

const MINUTE_MS = 60_000;
/**
 * How long before the moment a reset time was printed it may lie and still be today's: the
 * provider just said the limit holds until then, so a time a little behind the clock is the
 * reset passing (or the clocks' difference), not one a day later. An hour covers any skew and the
 * seconds between printing and reading; a time-only reset is never a day minus an hour ahead
 * (Codex prints a date for any reset not today, Claude Code for one more than a day ahead).
 */
const PASSED_TODAY_MS = 3_600_000;

const EPOCH = /limit reached\|(\d{9,13})\b/i;
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
const DURATION = /\b(?:try again|resets?|available again)\s+in\s+((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)/i;
const DURATION_PART = /(\d+)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b/gi;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONE = String.raw`(?:\s*\(([^)]+)\)|\s+(UTC|GMT)\b)?`;
const TIME = String.raw`(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?`;
const TIME_24 = String.raw`(\d{1,2}):(\d{2})`;
const LEAD = String.raw`\b(?:try again|resets?|reset)\s+(?:at\s+|on\s+)?`;
const DATE_TIME = new RegExp(`${LEAD}([a-z]{3,9})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s*(?:(\\d{4}),?\\s*)?(?:at\\s+)?${TIME}${ZONE}`, 'i');
const TIME_OF_DAY = new RegExp(`${LEAD}${TIME}${ZONE}`, 'i');
const TIME_OF_DAY_24 = new RegExp(`${LEAD}${TIME_24}${ZONE}`, 'i');

/** The reset time a usage-limit text gives (epoch ms), or null. */
export function parseResetTime(text: string, clock: ResetClock = {}): number | null {
  const epoch = EPOCH.exec(text);
  if (epoch) {
    const value = Number(epoch[1]);
    return value < 1e12 ? value * 1_000 : value;
  }
  const now = clock.now;
  if (now === undefined) return null;
  const duration = DURATION.exec(text);
  if (duration) {
    let total = 0;
    let smallest = Number.POSITIVE_INFINITY;
    for (const part of (duration[1] ?? '').matchAll(DURATION_PART)) {
      const unit = UNIT_MS[(part[2] ?? 's').charAt(0).toLowerCase()] ?? 0;
      total += Number(part[1]) * unit;
      smallest = Math.min(smallest, unit);
    }
    // "… 9 minutes" is 9 to 10 minutes away (the seconds are not printed): the end of its last minute.
    if (total > 0) return now + total + (smallest === MINUTE_MS ? MINUTE_MS : 0);
  }
  const dated = DATE_TIME.exec(text);
  const month = dated ? MONTHS.indexOf((dated[1] ?? '').slice(0, 3).toLowerCase()) : -1;
  if (dated && month >= 0) {
    const zone = dated[7] ?? dated[8] ?? clock.timeZone ?? 'UTC';
    const hour = to24(Number(dated[4]), dated[6]);
    const today = wallDate(now, zone);
    if (today === null) return null;
    const year = dated[3] ? Number(dated[3]) : today.year;
    const at = endOfMinute(wallToEpoch(year, month, Number(dated[2]), hour, Number(dated[5] ?? 0), zone));
    // A date without a year that is already past is next year's.
    return at !== null && !dated[3] && at < now - 86_400_000
      ? endOfMinute(wallToEpoch(year + 1, month, Number(dated[2]), hour, Number(dated[5] ?? 0), zone))
      : at;
  }
  const time = TIME_OF_DAY.exec(text);
  if (time) return nextWallTime(now, to24(Number(time[1]), time[3]), Number(time[2] ?? 0), time[4] ?? time[5] ?? clock.timeZone ?? 'UTC');
  const time24 = TIME_OF_DAY_24.exec(text);
  if (time24) return nextWallTime(now, Number(time24[1]), Number(time24[2]), time24[3] ?? time24[4] ?? clock.timeZone ?? 'UTC');
  return null;
}

function to24(hour: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return hour;
  const h = hour % 12;
  return meridiem.toLowerCase() === 'p' ? h + 12 : h;
}

interface WallDate {
  year: number;
  month: number;
  day: number;
}

function formatter(zone: string): Intl.DateTimeFormat | null {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return null; // not a zone Intl knows: the reset time is unreadable, not wrong
  }
}

function wallFields(epochMs: number, zone: string): Record<string, number> | null {
  const format = formatter(zone);
  if (format === null) return null;
  const fields: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return fields;
}

function wallDate(epochMs: number, zone: string): WallDate | null {
  const f = wallFields(epochMs, zone);
  return f === null ? null : { year: f.year ?? 0, month: (f.month ?? 1) - 1, day: f.day ?? 1 };
}

/** How far the zone's wall clock is ahead of UTC at an instant (ms). */
function zoneOffset(epochMs: number, zone: string): number | null {
  const f = wallFields(epochMs, zone);
  if (f === null) return null;
  const asUtc = Date.UTC(f.year ?? 0, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0, f.second ?? 0);
  return asUtc - Math.floor(epochMs / 1_000) * 1_000;
}

/** The instant a wall-clock time in a zone names (the offset is checked once more across a DST change). */
function wallToEpoch(year: number, month: number, day: number, hour: number, minute: number, zone: string): number | null {
  const naive = Date.UTC(year, month, day, hour, minute);
  const first = zoneOffset(naive, zone);
  if (first === null) return null;
  const second = zoneOffset(naive - first, zone);
  return naive - (second ?? first);
}

/** The end of the minute that starts at `at` (a reset printed to the minute lies somewhere inside it). */
function endOfMinute(at: number | null): number | null {
  return at === null ? null : at + MINUTE_MS;
}

/**
 * The end of the minute hour:minute in the zone on the day the text was printed (`now`), unless
 * that lies more than PASSED_TODAY_MS before `now`: then the next day's.
 */
function nextWallTime(now: number, hour: number, minute: number, zone: string): number | null {
  const today = wallDate(now, zone);
  if (today === null || hour > 23 || minute > 59) return null;
  const at = endOfMinute(wallToEpoch(today.year, today.month, today.day, hour, minute, zone));
  if (at === null) return null;
  return at > now - PASSED_TODAY_MS ? at : endOfMinute(wallToEpoch(today.year, today.month, today.day + 1, hour, minute, zone));
}
