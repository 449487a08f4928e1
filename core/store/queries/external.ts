import type { ErrorEnvelope } from '../../base/errors/envelope.js';
import { all, Dialect, get, run, type Query } from './plan.js';
import { storableCount, storableKey, storableText } from '../projection/storable.js';
import { StoreError } from '../store-error.js';

/**
 * Bookkeeping of external runs (agent sessions seen through OpenTelemetry, core/otel) and of
 * ingested payloads, in migration 5's tables. The ingester reads a session's row, decides the
 * events, and writes the row back in the transaction that journals them (store.ingestExternal).
 */

export interface ExternalSessionRow {
  sessionKey: string;
  runId: string;
  origin: string;
  sessionId: string;
  parent: { runId: string; taskId: string; attempt: number } | null;
  /** Wall-clock ms of the latest payload that carried an event of the session. */
  lastEventAt: number;
  /** Ended by the quiet period (`externalRunIdle`); events reopen it. */
  idle: boolean;
  /** The prompt task events attach to, and how many attempts it has. */
  openTask: string | null;
  openTaskAttempts: number;
  taskCount: number;
  /**
   * What the open prompt has come to (its open attempt, its last outcome, the failure that ended
   * it), as JSON the ingest owns (core/otel/session/session-state.ts); null when nothing is known.
   */
  promptState?: string | null;
  /** The run's last journaled seq (read, never written here). */
  lastSeq: number;
  /**
   * How the Hivewatch attempt a linked session was sent from ended (its `attempts` row), once
   * it has: the session ends with it (read, never written here; absent while it runs or unlinked).
   */
  parentEnded?: { status: string; error: ErrorEnvelope | null } | null;
}

export interface ExternalBatch {
  /** The payload's digest: a payload already ingested is skipped whole. Null: no dedupe. */
  digest: string | null;
  records: number;
  receivedAt: number;
  sessions: readonly ExternalSessionRow[];
  /**
   * Several payloads journaled in one transaction (the ingest queue's group commit), each with
   * its digest; `digest` is then null. One already ingested rolls the whole batch back with a
   * DuplicatePayloadError (nothing written): the caller journals them one at a time instead.
   */
  payloads?: readonly { digest: string; records: number }[];
}

/** A batch of several payloads held one ingested before (ExternalBatch.payloads). */
export class DuplicatePayloadError extends StoreError {
  constructor(readonly digest: string) {
    super('invalid_argument', `payload ${digest} was ingested before: journal the batch's payloads one at a time`);
  }
}

/** An external run sent by the CLI process of a Hivewatch attempt. */
export interface AttemptTelemetryLink {
  taskId: string;
  attempt: number;
  runId: string;
  sessionId: string;
  origin: string;
}

type Row = {
  session_key: string;
  run_id: string;
  origin: string;
  session_id: string;
  parent_run_id: string | null;
  parent_task_id: string | null;
  parent_attempt: number | null;
  last_event_at: number;
  idle: number;
  open_task: string | null;
  open_task_attempts: number;
  task_count: number;
  prompt_state: string | null;
  last_seq: number | null;
  parent_status?: string | null;
  parent_error?: unknown;
  parent_ended_at?: number | null;
};

const SELECT = `SELECT x.*, r.last_seq, a.status AS parent_status, a.error AS parent_error, a.ended_at AS parent_ended_at
  FROM external_runs AS x LEFT JOIN runs AS r ON r.id = x.run_id
  LEFT JOIN attempts AS a ON a.run_id = x.parent_run_id AND a.task_id = x.parent_task_id AND a.attempt = x.parent_attempt`;

/** How the linked attempt ended, once it has (PostgreSQL hands a json column back parsed; SQLite keeps the text). */
function parentEnded(r: Row): ExternalSessionRow['parentEnded'] {
  if (r.parent_ended_at === null || r.parent_ended_at === undefined || typeof r.parent_status !== 'string') return null;
  const error = typeof r.parent_error === 'string' ? (JSON.parse(r.parent_error) as ErrorEnvelope) : ((r.parent_error ?? null) as ErrorEnvelope | null);
  return { status: r.parent_status, error };
}

function fromRow(r: Row): ExternalSessionRow {
  return {
    sessionKey: r.session_key,
    runId: r.run_id,
    origin: r.origin,
    sessionId: r.session_id,
    parent:
      r.parent_run_id !== null && r.parent_task_id !== null && r.parent_attempt !== null
        ? { runId: r.parent_run_id, taskId: r.parent_task_id, attempt: r.parent_attempt }
        : null,
    lastEventAt: r.last_event_at,
    idle: r.idle !== 0,
    openTask: r.open_task,
    openTaskAttempts: r.open_task_attempts,
    taskCount: r.task_count,
    promptState: r.prompt_state ?? null,
    lastSeq: r.last_seq ?? 0,
    parentEnded: parentEnded(r),
  };
}

export function* externalSession(_dialect: Dialect, sessionKey: string): Query<ExternalSessionRow | null> {
  // Looked up as it was stored (a key too long for an index is kept hashed: storable.ts).
  const row = yield* get<Row>(`${SELECT} WHERE x.session_key = ?`, [storableKey(sessionKey)]);
  return row ? fromRow(row) : null;
}

/** The rows of the sessions with these keys (those that have one), in one read. */
export function* externalSessions(_dialect: Dialect, sessionKeys: readonly string[]): Query<ExternalSessionRow[]> {
  const found: ExternalSessionRow[] = [];
  for (let at = 0; at < sessionKeys.length; at += KEYS_PER_READ) {
    const keys = sessionKeys.slice(at, at + KEYS_PER_READ).map(storableKey);
    const rows = yield* all<Row>(`${SELECT} WHERE x.session_key IN (${keys.map(() => '?').join(', ')})`, keys);
    found.push(...rows.map(fromRow));
  }
  return found;
}

/** Keys per statement of `externalSessions`, well inside both engines' parameter limits. */
const KEYS_PER_READ = 500;

/** Open sessions whose latest event is older than `before` (wall ms), oldest first. */
export function* quietExternalSessions(_dialect: Dialect, before: number): Query<ExternalSessionRow[]> {
  return (yield* all<Row>(`${SELECT} WHERE x.idle = 0 AND x.last_event_at < ? ORDER BY x.last_event_at`, [before])).map(fromRow);
}

export function* attemptTelemetry(_dialect: Dialect, runId: string): Query<AttemptTelemetryLink[]> {
  const rows = yield* all<{ parent_task_id: string; parent_attempt: number; run_id: string; session_id: string; origin: string }>(
    `SELECT parent_task_id, parent_attempt, run_id, session_id, origin FROM external_runs
       WHERE parent_run_id = ? ORDER BY parent_task_id, parent_attempt, run_id`,
    [runId],
  );
  return rows.map((r) => ({ taskId: r.parent_task_id, attempt: r.parent_attempt, runId: r.run_id, sessionId: r.session_id, origin: r.origin }));
}

/**
 * True when the digest was new (and is now remembered); false for a payload seen before. A batch
 * of several payloads remembers each, and throws DuplicatePayloadError (the caller's transaction
 * rolls back) at one seen before.
 */
export function* rememberPayload(_dialect: Dialect, batch: ExternalBatch): Query<boolean> {
  for (const payload of batch.payloads ?? []) {
    const result = yield* run(REMEMBER_PAYLOAD, [payload.digest, batch.receivedAt, payload.records]);
    if (result.changes !== 1) throw new DuplicatePayloadError(payload.digest);
  }
  if (batch.digest === null) return true;
  const result = yield* run(REMEMBER_PAYLOAD, [batch.digest, batch.receivedAt, batch.records]);
  return result.changes === 1;
}

const REMEMBER_PAYLOAD = 'INSERT INTO otel_payloads (digest, received_at, records) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING';

// Positional parameters (not named ones): the PostgreSQL executor numbers `?` in order.
const SESSION_COLUMNS = `(session_key, run_id, origin, session_id, parent_run_id, parent_task_id, parent_attempt,
       last_event_at, idle, open_task, open_task_attempts, task_count, prompt_state)`;
const SESSION_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const SESSION_CONFLICT = `ON CONFLICT (session_key) DO UPDATE SET last_event_at = excluded.last_event_at, idle = excluded.idle,
       open_task = excluded.open_task, open_task_attempts = excluded.open_task_attempts, task_count = excluded.task_count,
       prompt_state = excluded.prompt_state`;
/** Sessions per statement on PostgreSQL (13 parameters each: far inside its 65,535). */
const SESSIONS_PER_STATEMENT = 200;

function sessionParams(given: ExternalSessionRow): unknown[] {
  const s = storableSession(given);
  return [
    s.sessionKey,
    s.runId,
    s.origin,
    s.sessionId,
    s.parent?.runId ?? null,
    s.parent?.taskId ?? null,
    s.parent?.attempt ?? null,
    s.lastEventAt,
    s.idle ? 1 : 0,
    s.openTask,
    s.openTaskAttempts,
    s.taskCount,
    s.promptState ?? null,
  ];
}

/**
 * Writes the sessions' rows back. SQLite runs one cached statement per row (no round trip to
 * save); PostgreSQL takes them in multi-row statements, each a round trip saved. A multi-row
 * upsert may not touch one row twice, so a key given twice keeps its last row (what one
 * statement per row leaves too).
 */
export function* writeSessions(dialect: Dialect, sessions: readonly ExternalSessionRow[]): Query<void> {
  if (dialect === Dialect.sqlite) {
    for (const given of sessions) yield* run(`INSERT INTO external_runs ${SESSION_COLUMNS} VALUES ${SESSION_ROW} ${SESSION_CONFLICT}`, sessionParams(given));
    return;
  }
  const last = new Map<string, ExternalSessionRow>();
  for (const given of sessions) last.set(storableKey(given.sessionKey), given);
  // In key order, as the journal writer locks its rows: two hosts' batches never wait on each other in a cycle.
  const rows = [...last.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  for (let at = 0; at < rows.length; at += SESSIONS_PER_STATEMENT) {
    const chunk = rows.slice(at, at + SESSIONS_PER_STATEMENT);
    yield* run(
      `INSERT INTO external_runs ${SESSION_COLUMNS} VALUES ${chunk.map(() => SESSION_ROW).join(', ')} ${SESSION_CONFLICT}`,
      chunk.flatMap(sessionParams),
    );
  }
}

const nullableKey = (text: string | null): string | null => (text === null ? null : storableKey(text));

/** A session's row as stored (storable.ts): its keys as its events store them, its counts as integers. */
function storableSession(row: ExternalSessionRow): ExternalSessionRow {
  const parent = row.parent && {
    runId: storableKey(row.parent.runId),
    taskId: storableKey(row.parent.taskId),
    attempt: storableCount(row.parent.attempt),
  };
  return {
    ...row,
    sessionKey: storableKey(row.sessionKey),
    runId: storableKey(row.runId),
    origin: storableKey(row.origin),
    sessionId: storableText(row.sessionId),
    parent,
    lastEventAt: storableCount(row.lastEventAt),
    openTask: nullableKey(row.openTask),
    openTaskAttempts: storableCount(row.openTaskAttempts),
    taskCount: storableCount(row.taskCount),
    lastSeq: storableCount(row.lastSeq),
  };
}
