import type { HivewatchEvent } from '../../engine/events.js';
import { eventFromRow, wallFromRow } from '../journal.js';
import { StoreError } from '../store-error.js';
import { clampLimit, type StatementCache } from './sql.js';

type EventRecord = { run_id: string; seq: number; type: string; ts: number; payload: string };

/** A run's events with seq > afterSeq, in seq order (a range scan of the journal's primary key). */
export function getEvents(cache: StatementCache, runId: string, afterSeq = 0, limit?: number): HivewatchEvent[] {
  if (!Number.isFinite(afterSeq)) throw new StoreError('invalid_argument', 'afterSeq must be a number');
  const n = clampLimit(limit, 1_000, 100_000);
  const rows = cache
    .get('SELECT run_id, seq, type, ts, payload FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?')
    .all(runId, afterSeq, n) as EventRecord[];
  return rows.map(eventFromRow);
}

/** Every event of a run, streamed from the journal without a limit (replay, resume). */
export function allEvents(cache: StatementCache, runId: string): HivewatchEvent[] {
  return allJournal(cache, runId).events;
}

/** Every event of a run with the wall time it was journaled at (`walls[i]` for `events[i]`). */
export function allJournal(cache: StatementCache, runId: string): { events: HivewatchEvent[]; walls: number[] } {
  const rows = cache
    .get('SELECT run_id, seq, type, ts, payload, wall FROM events WHERE run_id = ? ORDER BY seq')
    .all(runId) as (EventRecord & { wall: number | null })[];
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
export function eventsAfterCommit(cache: StatementCache, afterCommit: number, limit?: number): CommittedEvent[] {
  if (!Number.isSafeInteger(afterCommit) || afterCommit < 0) throw new StoreError('invalid_argument', 'afterCommit must be a whole number of at least 0');
  const n = clampLimit(limit, 1_000, 100_000);
  const rows = cache
    .get('SELECT run_id, seq, type, ts, payload, wall, commit_seq FROM events WHERE commit_seq > ? ORDER BY commit_seq LIMIT ?')
    .all(afterCommit, n) as (EventRecord & { wall: number | null; commit_seq: number })[];
  return rows.map((row) => ({ commitSeq: row.commit_seq, event: eventFromRow(row), wall: wallFromRow(row) }));
}

/** The newest commit sequence number (0 for an empty journal). */
export function journalHead(cache: StatementCache): number {
  const row = cache.get('SELECT commit_seq FROM journal_head WHERE id = 1').get() as { commit_seq: number } | undefined;
  return row?.commit_seq ?? 0;
}
