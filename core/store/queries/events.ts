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
