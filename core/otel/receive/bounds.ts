import { createHash } from 'node:crypto';

/**
 * The receiver's bounds on what telemetry may put into the journal (docs/otel.md
 * "Bounds"). Telemetry comes from any process that holds the ingest token, so a record's time,
 * durations, ids and messages are checked here before they become events: a value outside its
 * bound is replaced by a sane one, and what was sent, what was used and why are kept beside the
 * record's events (an `Adjustment`). Free-form attributes are kept as sent (JSON keeps any value).
 */

/** Telemetry dated before this (2000-01-01T00:00:00Z) is not believed: no agent CLI existed. */
export const SANE_TIME_MIN_MS = Date.UTC(2000, 0, 1);
/** Telemetry dated more than this after it arrived is not believed (clock skew stays well inside). */
export const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;
/** An API call's reported duration above this (or negative, or not a number) is not believed. */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;
/** Ids (session, prompt, run and task of a parent) longer than this are shortened with a digest. */
const MAX_ID_CHARS = 256;
/** The agent's name is part of the flow key `external:<agent>`: shorter still. */
export const MAX_AGENT_CHARS = 64;
/** Messages (an API error's text, a tool's output) longer than this are cut. */
const MAX_MESSAGE_CHARS = 16_384;
/** What an adjustment quotes of the value that was sent, at most. */
const MAX_GIVEN_CHARS = 120;
/** The `externalEvent` that carries a record's adjustments, just before the record's own events. */
export const ADJUSTED_EVENT = 'hivewatch.telemetry_adjusted';

/** One value the receiver did not take as sent. */
export interface Adjustment {
  /** Where it came from: `timeUnixNano`, `attributes.duration_ms`, `attributes.session.id`… */
  field: string;
  /** What was sent, quoted (cut to MAX_GIVEN_CHARS, with its full length when cut). */
  given: string;
  /** What the journal holds instead. */
  used: string | number | null;
  reason: string;
}

/** Two regexps: a global one keeps state between test() calls, so testing uses its own. */
const HAS_LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** U+0000 and unpaired surrogates become U+FFFD: no database column can hold them as text. */
export function cleanText(text: string): string {
  if (!text.includes('\u0000') && !HAS_LONE_SURROGATE.test(text)) return text;
  return text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');
}

/** A value as an adjustment quotes it. */
function quote(value: string): string {
  const clean = cleanText(value);
  return clean.length <= MAX_GIVEN_CHARS ? clean : `${cleanText(clean.slice(0, MAX_GIVEN_CHARS))}… (${clean.length} characters)`;
}

/**
 * The time a record is journaled at: its own when it is sane, else the time it arrived. `ms` is
 * what decode read (NaN: more than a fixed64 holds); `given` the time as sent (null: none was).
 */
export function saneTime(ms: number, given: string | null, field: string, receivedAt: number): { ts: number; adjustment: Adjustment | null } {
  if (given === null) return { ts: receivedAt, adjustment: null };
  let reason: string | null = null;
  if (!Number.isFinite(ms)) reason = 'more nanoseconds than a fixed64 holds';
  else if (ms < SANE_TIME_MIN_MS) reason = 'before 2000-01-01';
  else if (ms > receivedAt + FUTURE_SLACK_MS) reason = 'more than a day after it arrived';
  if (reason === null) return { ts: ms, adjustment: null };
  return { ts: receivedAt, adjustment: { field, given: quote(given), used: receivedAt, reason: `${reason}: recorded at the time it arrived` } };
}

/** A duration in ms within [0, MAX_DURATION_MS]; anything else counts as 0. */
export function saneDuration(ms: number | null, field: string): { ms: number; adjustment: Adjustment | null } {
  if (ms === null) return { ms: 0, adjustment: null };
  if (Number.isFinite(ms) && ms >= 0 && ms <= MAX_DURATION_MS) return { ms: Math.round(ms), adjustment: null };
  const reason = !Number.isFinite(ms) ? 'not a finite number' : ms < 0 ? 'negative' : 'longer than a day';
  return { ms: 0, adjustment: { field, given: quote(String(ms)), used: 0, reason: `${reason}: counted as 0 ms` } };
}

/**
 * An id the journal can key on: clean text, and at most `max` characters. A longer one becomes
 * its head, `.sha256-` and 32 hex digits of its digest (the same long id always maps to the same
 * short one, so a session stays one run).
 */
export function boundedId(id: string, field: string, max = MAX_ID_CHARS): { value: string; adjustment: Adjustment | null } {
  const clean = cleanText(id);
  if (clean.length <= max && clean === id) return { value: id, adjustment: null };
  if (clean.length <= max)
    return { value: clean, adjustment: { field, given: quote(id), used: clean, reason: 'NUL or unpaired surrogate replaced by U+FFFD' } };
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 32);
  const value = `${cleanText(clean.slice(0, max - 40))}.sha256-${digest}`;
  return { value, adjustment: { field, given: quote(id), used: value, reason: `longer than ${max} characters: shortened, with its digest` } };
}

/** A message the window can show: clean text of at most MAX_MESSAGE_CHARS. */
export function boundedText(text: string, field: string, max = MAX_MESSAGE_CHARS): { value: string; adjustment: Adjustment | null } {
  const clean = cleanText(text);
  if (clean.length <= max) {
    return {
      value: clean,
      adjustment: clean === text ? null : { field, given: quote(text), used: quote(clean), reason: 'NUL or unpaired surrogate replaced by U+FFFD' },
    };
  }
  const value = `${cleanText(clean.slice(0, max))}…`;
  return { value, adjustment: { field, given: quote(text), used: quote(value), reason: `longer than ${max} characters: cut` } };
}
