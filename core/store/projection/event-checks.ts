import type { HivewatchEvent } from '../../base/events.js';
import { usageProblem } from '../../base/usage-check.js';
import { StoreError } from '../store-error.js';

/**
 * Checks both journal writers (SQLite's JournalWriter, PostgreSQL's PostgresJournalWriter) make
 * on every batch, so the two engines accept and reject the same events with the same messages.
 */

export function validateEvent(event: HivewatchEvent): void {
  if (typeof event !== 'object' || (event as unknown) === null) throw new StoreError('invalid_event', 'an event must be an object');
  if (typeof event.runId !== 'string' || event.runId === '') throw new StoreError('invalid_event', 'event.runId must be a non-empty string');
  if (!Number.isSafeInteger(event.seq) || event.seq < 1) throw new StoreError('invalid_event', `event.seq must be a positive integer (run ${event.runId})`);
  if (typeof (event.type as unknown) !== 'string') throw new StoreError('invalid_event', `event.type must be a string (run ${event.runId})`);
  if (!Number.isFinite(event.ts)) throw new StoreError('invalid_event', `event.ts must be a number (run ${event.runId} seq ${event.seq})`);
  if ((event.type === 'attemptSucceeded' || event.type === 'attemptFailed') && event.usage !== undefined) {
    const problem = usageProblem(event.usage);
    if (problem !== null) throw new StoreError('invalid_event', `${problem} (run ${event.runId} seq ${event.seq})`);
  }
}

/** The message of a batch whose event does not follow its run's journal (a gap or a duplicate). */
export function seqMismatch(event: HivewatchEvent, expected: number): StoreError {
  return new StoreError('invalid_event', `run ${event.runId}: event seq ${event.seq} (${event.type}) but the journal expects ${expected}`);
}

/** Imported wall times (contract.ts `AppendOptions`): one finite number per event, or a clear refusal. */
export function checkImportedWalls(events: readonly HivewatchEvent[], walls: readonly number[] | undefined): void {
  if (walls === undefined) return;
  if (walls.length !== events.length) {
    throw new StoreError('invalid_argument', `importedWalls has ${walls.length} wall times for ${events.length} events`);
  }
  walls.forEach((wall, i) => {
    if (!Number.isFinite(wall)) throw new StoreError('invalid_argument', `importedWalls[${i}] must be a number, got ${String(wall)}`);
  });
}
