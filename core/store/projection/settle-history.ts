import { projectJournal } from './projections.js';
import { allJournal } from '../queries/events.js';
import { all, run, type Dialect, type Query } from '../queries/plan.js';
import { FAILURE_KEY, FAILURE_ROLLUP_TABLE } from '../rollups/failure-rollups.js';
import { GRAIN_MS, GRAINS, GROUP_TREND_GRAINS, GROUP_TREND_TABLE, ROLLUP_TABLE } from '../rollups/rollups.js';

/**
 * Migration 10's backfill, one code for both engines (SQLite runs it inside its migration's
 * transaction, PostgreSQL inside its twin's): every stored occurrence gets its disposition and
 * every ended run its ending error, from the run's own journal through the live projection
 * (`projectJournal`), so `replayRun` agrees with what the migration wrote for old runs exactly as
 * it does for new ones; then every aggregate is rebuilt from the settled rows.
 *
 * The new columns default to what a completed run's rows are (`handled`, not ending, no ending
 * error): every pending occurrence of a completed run was settled handled by its end, so only
 * the other runs (failed, cancelled, interrupted, and live ones, whose occurrences stay pending)
 * are replayed, and only rows that differ from the default are written.
 */
export function* settleHistory(dialect: Dialect): Query<{ runs: number; occurrences: number }> {
  const ids = yield* all<{ id: string }>("SELECT id FROM runs WHERE status <> 'completed' ORDER BY id");
  let occurrences = 0;
  for (const { id } of ids) {
    const { events, walls } = yield* allJournal(dialect, id);
    const { state, emitted } = projectJournal(events, walls);
    if (!state) continue;
    for (const e of emitted.errors) {
      if (e.disposition === 'handled' && !e.ending) continue;
      yield* run('UPDATE errors SET disposition = ?, ending = ? WHERE run_id = ? AND seq = ?', [e.disposition, e.ending ? 1 : 0, id, e.seq]);
      occurrences += 1;
    }
    const r = state.run;
    if (r.endingCode === null) continue;
    yield* run(
      `UPDATE runs SET ending_code = ?, ending_category = ?, ending_origin = ?, ending_message = ?, ending_step = ?,
         ending_task_id = ?, ending_attempt = ?, ending_root_code = ?, ending_chain = ? WHERE id = ?`,
      [
        r.endingCode,
        r.endingCategory,
        r.endingOrigin,
        r.endingMessage,
        r.endingStep,
        r.endingTaskId,
        r.endingAttempt,
        r.endingRootCode,
        r.endingChain === null ? null : JSON.stringify(r.endingChain),
        id,
      ],
    );
  }
  yield* rebuildAggregates();
  return { runs: ids.length, occurrences };
}

const floorOf = (column: string, size: number): string => `${column} - (((${column} % ${size}) + ${size}) % ${size})`;

/**
 * Fills the (new, empty) rollup, trend and failure tables from the rows, and recounts every
 * group's unhandled members: `verifyAggregates` checks the same sums.
 */
function* rebuildAggregates(): Query<void> {
  for (const grain of GRAINS) {
    yield* run(
      `INSERT INTO ${ROLLUP_TABLE[grain]} (bucket, category, origin, code, flow, disposition, count)
       SELECT ${floorOf('ts', GRAIN_MS[grain])}, category, origin, code, flow, disposition, COUNT(*) FROM errors GROUP BY 1, 2, 3, 4, 5, 6`,
    );
    yield* run(
      `INSERT INTO ${FAILURE_ROLLUP_TABLE[grain]} (${FAILURE_KEY.join(', ')}, count)
       SELECT ${floorOf('ended_wall', GRAIN_MS[grain])}, COALESCE(ending_category, ''), COALESCE(ending_origin, ''), ending_code,
         COALESCE(ending_root_code, ending_code), flow, COUNT(*)
       FROM runs WHERE status = 'failed' AND ending_code IS NOT NULL AND ended_wall IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6`,
    );
  }
  for (const grain of GROUP_TREND_GRAINS) {
    yield* run(
      `INSERT INTO ${GROUP_TREND_TABLE[grain]} (bucket, fingerprint, flow, disposition, count)
       SELECT ${floorOf('ts', GRAIN_MS[grain])}, fingerprint, flow, disposition, COUNT(*) FROM errors GROUP BY 1, 2, 3, 4`,
    );
  }
  yield* run(
    `UPDATE error_groups SET unhandled = (
       SELECT COUNT(*) FROM errors WHERE errors.fingerprint = error_groups.fingerprint AND errors.disposition = 'unhandled')`,
  );
}
