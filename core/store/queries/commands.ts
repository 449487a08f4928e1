import { all, Dialect, get, run, type Query } from './plan.js';
import { leaseOf, type HostLeaseRow, type LeaseColumns } from '../hosts/host-liveness.js';
import type { RunOwner } from '../hosts/hosts.js';
import { StoreError } from '../store-error.js';

/**
 * Run commands for a run another process hosts: the caller journals the command in
 * `run_commands`; the hosting process reads its runs' pending commands on its change probe,
 * applies each through its FlowRun with the command's id (so `cancelRequested` /
 * `backoffSkipped` carry it) and records the outcome here, which the caller waits for.
 */

export const RunCommandKind = { cancel: 'cancel', skipBackoff: 'skipBackoff' } as const;
export type RunCommandKind = (typeof RunCommandKind)[keyof typeof RunCommandKind];

type RunCommandState = 'pending' | 'done';

export interface RunCommand {
  commandId: string;
  runId: string;
  kind: RunCommandKind;
  /** skipBackoff: the task waiting in backoff. */
  taskId: string | null;
  /** cancel: the operator's reason. */
  reason: string | null;
  createdAt: number;
  state: RunCommandState;
  /** Set once done: whether the host accepted it, and why not. */
  accepted: boolean | null;
  message: string | null;
}

interface CommandRecord {
  command_id: string;
  run_id: string;
  kind: string;
  task_id: string | null;
  reason: string | null;
  created_at: number;
  state: string;
  accepted: number | null;
  message: string | null;
}

const COLUMNS = 'command_id, run_id, kind, task_id, reason, created_at, state, accepted, message';

function commandOf(row: CommandRecord): RunCommand {
  return {
    commandId: row.command_id,
    runId: row.run_id,
    kind: row.kind as RunCommandKind,
    taskId: row.task_id,
    reason: row.reason,
    createdAt: row.created_at,
    state: row.state as RunCommandState,
    accepted: row.accepted === null ? null : row.accepted === 1,
    message: row.message,
  };
}

export function* enqueueCommand(
  _dialect: Dialect,
  command: { commandId: string; runId: string; kind: RunCommandKind; taskId?: string | null; reason?: string | null },
  now: number,
): Query<void> {
  if (!(Object.values(RunCommandKind) as string[]).includes(command.kind)) {
    throw new StoreError('invalid_argument', `unknown run command "${String(command.kind)}"`);
  }
  yield* run(`INSERT INTO run_commands (command_id, run_id, kind, task_id, reason, created_at) VALUES (?, ?, ?, ?, ?, ?)`, [
    command.commandId,
    command.runId,
    command.kind,
    command.taskId ?? null,
    command.reason ?? null,
    now,
  ]);
}

/** Pending commands of the given runs, oldest first. */
export function* pendingCommands(dialect: Dialect, runIds: readonly string[]): Query<RunCommand[]> {
  if (runIds.length === 0) return [];
  const rows: CommandRecord[] = [];
  // Ties of created_at in the order of insertion: SQLite's rowid, PostgreSQL's identity column.
  const inserted = dialect === Dialect.postgres ? 'id' : 'rowid';
  // Chunks keep the statement within SQLite's parameter limit and few distinct texts cached.
  for (let i = 0; i < runIds.length; i += 100) {
    const chunk = runIds.slice(i, i + 100);
    const sql = `SELECT ${COLUMNS} FROM run_commands WHERE state = 'pending' AND run_id IN (${chunk.map(() => '?').join(', ')}) ORDER BY created_at, ${inserted}`;
    rows.push(...(yield* all<CommandRecord>(sql, chunk)));
  }
  return rows.map(commandOf);
}

/** Records a command's outcome; false when it was done already (another host cannot redo it). */
export function* completeCommand(_dialect: Dialect, commandId: string, outcome: { accepted: boolean; message?: string | null }, now: number): Query<boolean> {
  const result = yield* run(`UPDATE run_commands SET state = 'done', accepted = ?, message = ?, done_at = ? WHERE command_id = ? AND state = 'pending'`, [
    outcome.accepted ? 1 : 0,
    outcome.message ?? null,
    now,
    commandId,
  ]);
  return result.changes === 1;
}

export function* getCommand(_dialect: Dialect, commandId: string): Query<RunCommand | null> {
  const row = yield* get<CommandRecord>(`SELECT ${COLUMNS} FROM run_commands WHERE command_id = ?`, [commandId]);
  return row ? commandOf(row) : null;
}

/** The process hosting a run and its lease (null when none is recorded: it ended, or it never started). */
export function* runHost(_dialect: Dialect, runId: string): Query<{ owner: RunOwner; lease: HostLeaseRow | null } | null> {
  const row = yield* get<RunOwner & LeaseColumns>(
    `SELECT h.pid, h.hostname, h.instance, hs.heartbeat_at, hs.lease_ms, hs.machine, hs.start_time
     FROM run_hosts AS h LEFT JOIN hosts AS hs ON hs.instance = h.instance WHERE h.run_id = ?`,
    [runId],
  );
  if (!row) return null;
  return { owner: { pid: Number(row.pid), hostname: row.hostname, instance: row.instance }, lease: leaseOf(row) };
}
