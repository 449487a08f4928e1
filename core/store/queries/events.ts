import type { HivewatchEvent } from '../../base/events.js';
import { eventFromRow, wallFromRow } from '../projection/journal-codec.js';
import { StoreError } from '../store-error.js';
import { clampLimit } from './sql.js';
import { all, get, type Dialect, type Query } from './plan.js';

type EventRecord = { run_id: string; seq: number; type: string; ts: number; payload: string };

/** A run's events with seq > afterSeq, in seq order (a range scan of the journal's primary key). */
export function* getEvents(_dialect: Dialect, runId: string, afterSeq = 0, limit?: number): Query<HivewatchEvent[]> {
  if (!Number.isFinite(afterSeq)) throw new StoreError('invalid_argument', 'afterSeq must be a number');
  const n = clampLimit(limit, 1_000, 100_000);
  const rows = yield* all<EventRecord>('SELECT run_id, seq, type, ts, payload FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?', [
    runId,
    afterSeq,
    n,
  ]);
  return rows.map(eventFromRow);
}

/**
 * A page of a run's events like `getEvents`, each with the wall time it was journaled at
 * (`walls[i]` for `events[i]`): a virtual-clock run's `ts` is its own clock, and what a window
 * shows as "when" is the wall time.
 */
export function* getJournalPage(_dialect: Dialect, runId: string, afterSeq = 0, limit?: number): Query<{ events: HivewatchEvent[]; walls: number[] }> {
  if (!Number.isFinite(afterSeq)) throw new StoreError('invalid_argument', 'afterSeq must be a number');
  const n = clampLimit(limit, 1_000, 100_000);
  const rows = yield* all<EventRecord & { wall: number | null }>(
    'SELECT run_id, seq, type, ts, payload, wall FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    [runId, afterSeq, n],
  );
  return { events: rows.map(eventFromRow), walls: rows.map(wallFromRow) };
}

/** Every event of a run, streamed from the journal without a limit (replay, resume). */
export function* allEvents(dialect: Dialect, runId: string): Query<HivewatchEvent[]> {
  return (yield* allJournal(dialect, runId)).events;
}

/** Every event of a run with the wall time it was journaled at (`walls[i]` for `events[i]`). */
export function* allJournal(_dialect: Dialect, runId: string): Query<{ events: HivewatchEvent[]; walls: number[] }> {
  const rows = yield* all<EventRecord & { wall: number | null }>('SELECT run_id, seq, type, ts, payload, wall FROM events WHERE run_id = ? ORDER BY seq', [
    runId,
  ]);
  return { events: rows.map(eventFromRow), walls: rows.map(wallFromRow) };
}

/** A journaled event with its place in the order of commit and its wall time. */
export interface CommittedEvent {
  commitSeq: number;
  event: HivewatchEvent;
  wall: number;
}

/**
 * Events committed after `afterCommit`, in commit order, at most `limit` (a range scan of the
 * commit-order index): what a tail of the journal reads after its change probe fired.
 */
export function* eventsAfterCommit(_dialect: Dialect, afterCommit: number, limit?: number): Query<CommittedEvent[]> {
  if (!Number.isSafeInteger(afterCommit) || afterCommit < 0) throw new StoreError('invalid_argument', 'afterCommit must be a whole number of at least 0');
  const n = clampLimit(limit, 1_000, 100_000);
  const rows = yield* all<EventRecord & { wall: number | null; commit_seq: number }>(
    'SELECT run_id, seq, type, ts, payload, wall, commit_seq FROM events WHERE commit_seq > ? ORDER BY commit_seq LIMIT ?',
    [afterCommit, n],
  );
  return rows.map((row) => ({ commitSeq: row.commit_seq, event: eventFromRow(row), wall: wallFromRow(row) }));
}

/** The newest commit sequence number (0 for an empty journal). */
export function* journalHead(_dialect: Dialect): Query<number> {
  const row = yield* get<{ commit_seq: number }>('SELECT commit_seq FROM journal_head WHERE id = 1');
  return row?.commit_seq ?? 0;
}
