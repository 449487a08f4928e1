import type pg from 'pg';
import { attemptKey, newRunState, type RunState } from '../../projection/run-state.js';
import { type AttemptRow, type ErrorRow, type RunRow, type StepRow, type TaskRow } from '../../projection/schema.js';
import { rowFromDb } from '../../projection/row-codec.js';
import { ATTEMPTS, ERRORS, RUNS, STEPS, TASKS } from '../../projection/table-specs.js';
import type { Queryable } from './multi-row.js';
import { inlineStatement } from './statement-batch.js';

type Row = Record<string, unknown>;

/** The five reads of a state, each for every wanted run (a run that does not exist has no rows in any). */
const READS = [
  'SELECT * FROM runs WHERE id = ANY($1::text[])',
  'SELECT * FROM steps WHERE run_id = ANY($1::text[])',
  'SELECT * FROM tasks WHERE run_id = ANY($1::text[])',
  'SELECT * FROM attempts WHERE run_id = ANY($1::text[])',
  "SELECT * FROM errors WHERE run_id = ANY($1::text[]) AND disposition = 'pending' ORDER BY run_id, seq",
] as const;

/**
 * The rows of each read, in READS' order. One round trip: the reads go out as one simple-protocol
 * query (the ids written as a literal, statement-batch.ts), because a writer loads states inside
 * a journal batch's transaction and every wait there is a wait of the batch, and of whoever
 * flushes behind it. Run ids are validated text, so the literal always exists; should one not,
 * the reads go one at a time with a parameter.
 */
async function readRows(client: Queryable, ids: readonly string[]): Promise<Row[][]> {
  const inlined = READS.map((sql) => inlineStatement(sql, [ids]));
  if (inlined.some((text) => text === null)) {
    const answers: Row[][] = [];
    for (const sql of READS) answers.push((await client.query<Row>(sql, [[...ids]])).rows);
    return answers;
  }
  const answer = (await client.query(inlined.join(';\n'))) as unknown as pg.QueryResult<Row> | pg.QueryResult<Row>[];
  const answers = Array.isArray(answer) ? answer : [answer];
  if (answers.length !== READS.length) throw new Error(`loading run states: expected ${READS.length} answers, got ${answers.length}`);
  return answers.map((result) => result.rows);
}

/**
 * Whole runs read back for the writer: the run row, every step, task and attempt row and the
 * pending error occurrences (what a terminal event settles), in one round trip for any number of
 * runs. With every row in its state, the reducers never have to look one up (they run with
 * NO_ROWS, as replay does), so the lookups stay synchronous and exact. Runs that do not exist
 * yet are simply absent from the result.
 */
export async function loadRunStates(client: Queryable, runIds: readonly string[]): Promise<RunState[]> {
  const [runs = [], steps = [], tasks = [], attempts = [], pending = []] = await readRows(client, runIds);
  const states = new Map<string, RunState>();
  for (const record of runs) {
    const state = newRunState(rowFromDb<RunRow>(RUNS, record));
    states.set(state.run.id, state);
  }
  for (const record of steps) {
    const step = rowFromDb<StepRow>(STEPS, record);
    states.get(step.runId)?.steps.set(step.step, step);
  }
  for (const record of tasks) {
    const task = rowFromDb<TaskRow>(TASKS, record);
    const state = states.get(task.runId);
    if (!state) continue;
    state.tasks.set(task.taskId, task);
    if (task.step > state.maxTaskStep) state.maxTaskStep = task.step;
    if (task.status === 'backoff' && task.nextAttemptAt !== null) state.backoff.set(task.taskId, task.nextAttemptAt);
  }
  for (const record of attempts) {
    const attempt = rowFromDb<AttemptRow>(ATTEMPTS, record);
    states.get(attempt.runId)?.attempts.set(attemptKey(attempt.taskId, attempt.attempt), attempt);
  }
  for (const record of pending) {
    const error = rowFromDb<ErrorRow>(ERRORS, record);
    states.get(error.runId)?.pendingErrors.push(error);
  }
  return [...states.values()];
}
