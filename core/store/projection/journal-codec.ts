import { randomBytes } from 'node:crypto';
import type { HivewatchEvent } from '../../base/events.js';
import { rememberedJson } from './row-codec.js';

/**
 * The journal row's codec, the same on both engines: an event's payload text and back, and the
 * wall time each event is journaled with.
 */

/** Stands in for an event's `error` while the rest of its payload is serialised (see eventPayload). */
const ENVELOPE_SLOT = { [`\u0001envelope-${randomBytes(9).toString('base64url')}`]: 0 };
const ENVELOPE_SLOT_JSON = `"error":${JSON.stringify(ENVELOPE_SLOT)}`;
const ERROR_KEY_JSON = '"error":';

/**
 * The journal row's payload: the event without the four fields stored as columns (run_id, seq,
 * type, ts), which keeps the journal ~20% smaller than the whole event as JSON.
 *
 * An error envelope is in the payloads of `attemptFailed`, `errorOccurred` and `taskFailed` and
 * in the rows of its attempt and task, and it is about half of the journal's bytes: its JSON is
 * made once (`rememberedJson`) and put in the place of a stand-in object with a random key, so
 * the text is exactly `JSON.stringify(body)`.
 */
export function eventPayload(event: HivewatchEvent): string {
  const { runId: _runId, seq: _seq, type: _type, ts: _ts, ...body } = event;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return JSON.stringify(body);
  (body as { error: unknown }).error = ENVELOPE_SLOT;
  const text = JSON.stringify(body);
  const at = text.indexOf(ENVELOPE_SLOT_JSON);
  return `${text.slice(0, at + ERROR_KEY_JSON.length)}${rememberedJson(error)}${text.slice(at + ENVELOPE_SLOT_JSON.length)}`;
}

/**
 * An event's wall-clock time as journaled. The engine stamps `ts` from the run's clock: on a real
 * clock that is the wall time (the column stays NULL: no extra bytes); on a virtual clock it is
 * not, and the writer stores the commit time from its injected `now` (see `wallOf`).
 */
export function wallFromRow(row: { ts: number; wall: number | null }): number {
  return row.wall ?? row.ts;
}

/**
 * The wall time the writer journals for an event: its ts unless the run runs on a virtual
 * clock, then the commit time (`batchNow`, one reading of the store's clock per batch).
 */
export function wallOf(event: HivewatchEvent, clock: string | null, batchNow: number): number {
  const runClock = event.type === 'runStarted' ? event.options.clock : clock;
  return runClock === 'virtual' ? batchNow : event.ts;
}

export function eventFromRow(row: { run_id: string; seq: number; type: string; ts: number; payload: string }): HivewatchEvent {
  const body = JSON.parse(row.payload) as Record<string, unknown>;
  return { runId: row.run_id, seq: row.seq, ts: row.ts, type: row.type, ...body } as unknown as HivewatchEvent;
}
