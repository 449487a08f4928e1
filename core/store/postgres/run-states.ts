import { attemptKey, newRunState, type RunState } from '../projections.js';
import { ATTEMPTS, ERRORS, rowFromDb, RUNS, STEPS, TASKS, type AttemptRow, type ErrorRow, type RunRow, type StepRow, type TaskRow } from '../schema.js';
import type { Queryable } from './multi-row.js';

type Row = Record<string, unknown>;

/**
 * Whole runs read back for the writer: the run row, every step, task and attempt row and the
 * pending error occurrences (what a terminal event settles), five statements for any number of runs. With every row in its state, the reducers never have to
 * look one up (they run with NO_ROWS, as replay does), so the lookups stay synchronous and exact.
 * Runs that do not exist yet are simply absent from the result.
 */
export async function loadRunStates(client: Queryable, runIds: readonly string[]): Promise<RunState[]> {
  const ids = [...runIds];
  const runs = await client.query<Row>('SELECT * FROM runs WHERE id = ANY($1::text[])', [ids]);
  if (runs.rows.length === 0) return [];
  const states = new Map<string, RunState>();
  for (const record of runs.rows) {
    const state = newRunState(rowFromDb<RunRow>(RUNS, record));
    states.set(state.run.id, state);
  }
  const present = [...states.keys()];
  const steps = await client.query<Row>('SELECT * FROM steps WHERE run_id = ANY($1::text[])', [present]);
  for (const record of steps.rows) {
    const step = rowFromDb<StepRow>(STEPS, record);
    states.get(step.runId)?.steps.set(step.step, step);
  }
  const tasks = await client.query<Row>('SELECT * FROM tasks WHERE run_id = ANY($1::text[])', [present]);
  for (const record of tasks.rows) {
    const task = rowFromDb<TaskRow>(TASKS, record);
    const state = states.get(task.runId);
    if (!state) continue;
    state.tasks.set(task.taskId, task);
    if (task.step > state.maxTaskStep) state.maxTaskStep = task.step;
    if (task.status === 'backoff' && task.nextAttemptAt !== null) state.backoff.set(task.taskId, task.nextAttemptAt);
  }
  const attempts = await client.query<Row>('SELECT * FROM attempts WHERE run_id = ANY($1::text[])', [present]);
  for (const record of attempts.rows) {
    const attempt = rowFromDb<AttemptRow>(ATTEMPTS, record);
    states.get(attempt.runId)?.attempts.set(attemptKey(attempt.taskId, attempt.attempt), attempt);
  }
  const pending = await client.query<Row>("SELECT * FROM errors WHERE run_id = ANY($1::text[]) AND disposition = 'pending' ORDER BY run_id, seq", [present]);
  for (const record of pending.rows) {
    const error = rowFromDb<ErrorRow>(ERRORS, record);
    states.get(error.runId)?.pendingErrors.push(error);
  }
  return [...states.values()];
}
