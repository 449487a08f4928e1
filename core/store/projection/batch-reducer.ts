import type { HivewatchEvent } from '../../base/events.js';
import { seqMismatch } from './event-checks.js';
import { wallOf } from './journal-codec.js';
import { applyEvent } from './projections.js';
import type { Emitted, RowLoader, RunState } from './run-state.js';

/** Runs whose state a writer keeps between batches (live runs; a run past it is reloaded). */
export const DEFAULT_CACHED_RUNS = 2_048;

/**
 * The per-event loop of a batch, the same for both engines' writers (SQLite's `JournalWriter`,
 * PostgreSQL's `PostgresJournalWriter`): each event's seq must follow its run's, its wall time is
 * stamped (or taken from `importedWalls`), and it is reduced into its run's state. What differs
 * per engine is where a state comes from and what is queued per event: the `BatchRuns` hooks.
 */
export interface BatchRuns {
  /** The run's state before this batch (undefined: the run does not exist yet). Called once per run and batch, unless `states` forgets it. */
  stateOf(runId: string): RunState | undefined;
  /** A run this batch starts: its new state. */
  created(state: RunState): void;
  /** After each event is reduced: what the engine writes for it. */
  reduced(event: HivewatchEvent, state: RunState, wall: number): void;
}

export interface ReducedBatch {
  /** Each event's journaled wall time, in order. */
  walls: number[];
  /** The states the batch changed (each once). */
  touched: Set<RunState>;
}

/**
 * Reduces `events` (already validated) in order. `states` holds the batch's runs as it goes; a
 * caller that evicts a run mid-batch deletes it there, and the run's next event loads it again.
 */
export function reduceBatch(
  events: readonly HivewatchEvent[],
  importedWalls: readonly number[] | undefined,
  batchNow: number,
  context: { runs: BatchRuns; loader: RowLoader; emitted: Emitted; states: Map<string, RunState> },
): ReducedBatch {
  const { runs, loader, emitted, states } = context;
  const walls: number[] = [];
  const touched = new Set<RunState>();
  for (const event of events) {
    const runId = event.runId;
    let before = states.get(runId);
    if (before === undefined) {
      before = runs.stateOf(runId);
      if (before) states.set(runId, before);
    }
    const expected = (before?.seq ?? 0) + 1;
    if (event.seq !== expected) throw seqMismatch(event, expected);
    const wall = importedWalls?.[walls.length] ?? wallOf(event, before?.run.clock ?? null, batchNow);
    walls.push(wall);
    const state = applyEvent(before, event, loader, emitted, wall);
    if (!before) {
      runs.created(state);
      states.set(runId, state);
    }
    touched.add(state);
    runs.reduced(event, state, wall);
  }
  return { walls, touched };
}
