import { createHash } from 'node:crypto';
import type { HivewatchEvent } from '../../base/events.js';

/**
 * What the journal stores for values no database column can hold as they are:
 * the one place both engines' write paths (SQLite's `appendEvents` / `ingestExternal`,
 * PostgreSQL's `journal`) pass every event and every external session row through before a
 * writer sees them, so the two engines store the same thing for the same bytes
 * (docs/postgres.md, "What is stored for hostile bytes").
 *
 * Rules, for the parts of an event Hivewatch defines (the *structured* parts: every field of the
 * event types, error envelopes included). The *free-form* parts (`attributes` of a telemetry
 * event, a channel's `value`, a checkpoint's `channels`, an envelope's `context`) only ever reach
 * the journal as JSON, whose escapes keep any text exactly; they are stored as given.
 *
 * 1. Text: U+0000 and unpaired UTF-16 surrogates (what invalid bytes become after a lossy decode,
 *    or after cutting a string between the halves of a pair) become U+FFFD. PostgreSQL's text
 *    cannot hold U+0000 at all, and neither engine can hold an unpaired surrogate as UTF-8.
 * 2. Identifiers (keys, indexed columns: run and task ids, flows, agents, error codes and
 *    origins, see IDENTIFIER_KEYS) over IDENTIFIER_MAX_BYTES of UTF-8 become their first
 *    IDENTIFIER_HEAD characters, `.sha256-` and 32 hex digits of their SHA-256: a PostgreSQL
 *    index entry holds about 2.7 KB, and a key must stay a key (the same long id hashes the
 *    same way in every event and every host).
 * 3. Integers (counts, sequence numbers, steps, ms times and durations, see INTEGER_KEYS) are
 *    stored in BIGINT columns: a fraction is rounded, a value beyond ±(2^53 − 1) (1e308, a
 *    40-digit number, ±Infinity) is clamped to it, NaN becomes null.
 * 4. Any other number that is not finite (NaN, ±Infinity) becomes null, as JSON would write it;
 *    −0 becomes 0, as JSON writes it.
 *
 * Every change is recorded on the event itself, in `storageChanges` (StorageChange: the path,
 * the rule, the original value as text), so the journal says what was changed and keeps the
 * original (JSON escapes keep it exact). An event that needs nothing is returned as it is.
 */

const STORAGE_CHANGES_FIELD = 'storageChanges';
export const IDENTIFIER_MAX_BYTES = 512;
const IDENTIFIER_HEAD = 96;
const MAX_INTEGER = Number.MAX_SAFE_INTEGER;

type StorageRule = 'text' | 'identifier' | 'integer' | 'finite';

export interface StorageChange {
  /** Where in the event: `output`, `error.message`, `frontier[0].taskId`. */
  path: string;
  rule: StorageRule;
  /** The value as it was given: the string itself, or a number as JavaScript writes it ("1e+308", "NaN"). */
  original: string;
}

/** Keys whose string values are identifiers (rule 2), wherever they stand in a structured part. */
const IDENTIFIER_KEYS = new Set([
  'runId',
  'taskId',
  'flow',
  'flowName',
  'agent',
  'defaultAgent',
  'resumedFrom',
  'retryOf',
  'commandId',
  'category',
  'code',
  'origin',
  'run',
  'task',
  'project',
  'channel',
]);

/** Keys whose numbers are integers (rule 3). `seq` is not here: a seq that is no integer is refused (event-checks.ts). */
const INTEGER_KEYS = new Set([
  'ts',
  'step',
  'ordinal',
  'attempt',
  'attempts',
  'maxAttempts',
  'durationMs',
  'delayMs',
  'nextAttemptAt',
  'epoch',
  'currentEpoch',
  'resumeStep',
  'semantics',
  'maxSteps',
  'concurrency',
  'steps',
  'pid',
  'pgid',
  'exitCode',
  'quietMs',
  'lastEventAt',
  'idleSince',
  'timestamp',
]);

/** Subtrees stored as JSON only, as given (see above). */
const FREE_FORM_KEYS = new Set(['attributes', 'value', 'channels', 'context', STORAGE_CHANGES_FIELD]);

/** Deeper than this a structured part is not Hivewatch's (envelope cause chains are far shallower): left as it is. */
const MAX_DEPTH = 64;

const wellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
const UNSTORABLE_TEXT = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Rule 1: the text with U+0000 and unpaired surrogates replaced by U+FFFD (the same string when there are none). */
export function storableText(text: string): string {
  if (!text.includes('\0') && wellFormed(text)) return text;
  return text.replace(UNSTORABLE_TEXT, '\uFFFD');
}

/** Rule 2 on a text that satisfies rule 1. */
function storableIdentifier(text: string): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short strings need no counting.
  if (text.length * 3 <= IDENTIFIER_MAX_BYTES || Buffer.byteLength(text, 'utf8') <= IDENTIFIER_MAX_BYTES) return text;
  let head = text.slice(0, IDENTIFIER_HEAD);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head}.sha256-${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/** Rule 3: a safe integer, or null for NaN. */
export function storableInteger(value: number): number | null {
  if (Number.isNaN(value)) return null;
  if (value > MAX_INTEGER) return MAX_INTEGER;
  if (value < -MAX_INTEGER) return -MAX_INTEGER;
  const whole = Math.round(value);
  return whole === 0 ? 0 : whole;
}

/** Rules 1 and 2 for a key: what the journal and every table keep for it. */
export function storableKey(text: string): string {
  return storableIdentifier(storableText(text));
}

/** `parent.key` or `parent[i]`: made only for a change, or to descend (most leaves need no path). */
const pathOf = (parent: string, key: string | number): string => (typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`);

class Walk {
  changes: StorageChange[] = [];

  private note(parent: string, at: string | number, rule: StorageRule, original: unknown): void {
    this.changes.push({ path: pathOf(parent, at), rule, original: typeof original === 'string' ? original : String(original) });
  }

  /** `key` decides the rules (an array's items follow the array's key); `at` is where the value is. */
  private value(value: unknown, key: string, parent: string, at: string | number, depth: number): unknown {
    if (typeof value === 'string') return this.text(value, key, parent, at);
    if (typeof value === 'number') return this.number(value, key, parent, at);
    if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) return this.array(value, key, pathOf(parent, at), depth);
    return this.object(value as Record<string, unknown>, pathOf(parent, at), depth);
  }

  private text(value: string, key: string, parent: string, at: string | number): string {
    const text = storableText(value);
    const stored = IDENTIFIER_KEYS.has(key) ? storableIdentifier(text) : text;
    if (stored !== value) this.note(parent, at, stored !== text ? 'identifier' : 'text', value);
    return stored;
  }

  private number(value: number, key: string, parent: string, at: string | number): number | null {
    if (INTEGER_KEYS.has(key) && !Number.isSafeInteger(value)) {
      const stored = storableInteger(value);
      if (!Object.is(stored, value)) this.note(parent, at, 'integer', value);
      return stored;
    }
    if (!Number.isFinite(value)) {
      this.note(parent, at, 'finite', value);
      return null;
    }
    return Object.is(value, -0) ? 0 : value;
  }

  private array(value: readonly unknown[], key: string, path: string, depth: number): unknown[] {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const item = value[i];
      const stored = this.value(item, key, path, i, depth + 1);
      if (copy === null && !Object.is(stored, item)) copy = value.slice(0, i);
      if (copy !== null) copy.push(stored);
    }
    return copy ?? (value as unknown[]);
  }

  object(value: Record<string, unknown>, path: string, depth: number): Record<string, unknown> {
    let copy: Record<string, unknown> | null = null;
    for (const key of Object.keys(value)) {
      if (FREE_FORM_KEYS.has(key)) continue;
      const item = value[key];
      const stored = this.value(item, key, path, key, depth + 1);
      // Object.is: −0 stored as 0 is a change (=== would call them equal).
      if (Object.is(stored, item)) continue;
      copy ??= { ...value };
      copy[key] = stored;
    }
    return copy ?? value;
  }
}

/** One walker for every event (the write path runs it on each; it holds nothing between events). */
const walker = new Walk();

/** The event as the journal stores it (see the rules above); the same object when nothing changes. */
export function storableEvent(event: HivewatchEvent): HivewatchEvent {
  if (typeof event !== 'object' || (event as unknown) === null) return event;
  const walk = walker;
  walk.changes = [];
  const stored = walk.object(event as unknown as Record<string, unknown>, '', 0);
  if (walk.changes.length === 0) return event;
  const earlier = (event as unknown as Record<string, unknown>)[STORAGE_CHANGES_FIELD];
  const changes = Array.isArray(earlier) ? [...(earlier as StorageChange[]), ...walk.changes] : walk.changes;
  return { ...stored, [STORAGE_CHANGES_FIELD]: changes } as unknown as HivewatchEvent;
}

/** A batch as the journal stores it; the same array when no event changes. */
export function storableBatch(events: readonly HivewatchEvent[]): readonly HivewatchEvent[] {
  let copy: HivewatchEvent[] | null = null;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i] as HivewatchEvent;
    const stored = storableEvent(event);
    if (stored !== event) copy ??= events.slice(0, i);
    if (copy !== null) copy.push(stored);
  }
  return copy ?? events;
}

/** Rule 3 for a column that must hold a number: NaN becomes 0. */
export function storableCount(value: number): number {
  return Number.isSafeInteger(value) ? value : (storableInteger(value) ?? 0);
}
