import { storableText } from '../../projection/storable.js';
import type pg from 'pg';
import type { HivewatchEvent } from '../../../base/events.js';
import { eventFromRow } from '../../projection/journal-codec.js';
import {
  chooseRuns,
  interruptionEvents,
  interruptionMessage,
  ATTEMPT_RECORD_TYPES,
  leftoverGroups,
  type Candidate,
  type ChosenRun,
  type RecoveredRun,
  type RecoverOptions,
} from '../../hosts/recovery.js';
import { ACTIVE_RUN_STATUSES } from '../../../common/run-statuses.js';
import { inTransaction } from '../connection/transaction.js';
import type { PostgresJournalWriter } from '../writer/writer.js';

/** The runs recovery looks at, with their host's lease (read without locking anything). */
const CANDIDATES = `SELECT r.id, r.flow, r.current_step, r.steps, r.last_seq, r.last_checkpoint_step,
    h.pid, h.hostname, h.instance, hs.heartbeat_at, hs.lease_ms, hs.machine, hs.start_time
  FROM runs AS r
  LEFT JOIN run_hosts AS h ON h.run_id = r.id
  LEFT JOIN hosts AS hs ON hs.instance = h.instance
  WHERE r.status = ANY($1::text[])
    -- An external run (telemetry of an agent Hivewatch did not start) has no host to lose: it ends when it goes quiet.
    AND NOT EXISTS (SELECT 1 FROM external_runs AS x WHERE x.run_id = r.id)
    AND ($2::text IS NULL OR r.id = $2)
  ORDER BY r.started_at, r.id`;

/**
 * The runs to interrupt, locked until commit and read again. Only these are locked (a live
 * host's runs never wait on a recovery). SKIP LOCKED passes over a run another recovering host
 * holds; a row locked and released meanwhile is re-checked on its committed version, so a run
 * the other host just interrupted is no longer active and drops out. Two hosts recovering at
 * once therefore never both interrupt a run.
 */
const LOCK = `SELECT id, flow, current_step, steps, last_seq, last_checkpoint_step FROM runs
  WHERE id = ANY($1::text[]) AND status = ANY($2::text[])
  ORDER BY started_at, id
  FOR UPDATE SKIP LOCKED`;

const ATTEMPT_EVENTS = `SELECT run_id, seq, type, ts, payload FROM events
  WHERE run_id = $1 AND type = ANY($2::text[]) ORDER BY seq`;

/**
 * Recovery on a shared database: every queued / running / cancelling run whose host is dead
 * (host-liveness.ts: its lease ran out, or on this machine its process is gone; a host without a
 * lease row is gone) gets the same `errorOccurred` + `runInterrupted` as on SQLite, in one
 * transaction with the check. A run whose host is alive is left alone, unless `force`; even then
 * its agents are not taken from it. Agent processes a dead host left can only be ended on that
 * host's machine: `leftoverGroups` ends them here when the host was this machine, and otherwise
 * says per process group that it ran elsewhere and was left alone.
 */
export async function recoverInterruptedPg(
  pool: pg.Pool,
  writer: PostgresJournalWriter,
  now: () => number,
  options: RecoverOptions = {},
): Promise<{ runs: RecoveredRun[]; events: HivewatchEvent[]; walls: number[]; commitSeqs: number[] }> {
  const touched: string[] = [];
  // What this writer remembers of these runs was written by their host, not by it; after a
  // rollback, what it reduced for them is not in the database either.
  return inTransaction(
    pool,
    async (client) => {
      const candidates = await client.query<Candidate>(CANDIDATES, [ACTIVE_RUN_STATUSES, options.runId === undefined ? null : storableText(options.runId)]);
      const chosen = new Map<string, ChosenRun>(chooseRuns(candidates.rows.map(numeric), now(), options, 'gone').map((c) => [c.run.id, c]));
      const runs: RecoveredRun[] = [];
      const events: HivewatchEvent[] = [];
      if (chosen.size === 0) return { runs, events, walls: [], commitSeqs: [] };
      const locked = await client.query<Candidate>(LOCK, [[...chosen.keys()], ACTIVE_RUN_STATUSES]);
      for (const row of locked.rows) {
        const found = chosen.get(row.id)!;
        // The locked row is the committed version: its journal position may have moved since the first read.
        const run = numeric({ ...found.run, ...row });
        const { owner, verdict } = found;
        // A forced recovery of a run whose host is alive must not take its agents from it.
        const processes = verdict.alive ? [] : leftoverGroups(run.id, owner, await attemptEvents(client, run.id), options.endLeftovers);
        events.push(...interruptionEvents(run, owner?.pid ?? null, interruptionMessage({ ...found, run }), processes, now()));
        touched.push(run.id);
        runs.push({ runId: run.id, pid: owner?.pid ?? null, processes });
      }
      writer.forget(touched);
      const { walls, commitSeqs } = await writer.append(client, events);
      return { runs, events, walls, commitSeqs };
    },
    () => writer.forget(touched),
  );
}

async function attemptEvents(client: pg.PoolClient, runId: string): Promise<HivewatchEvent[]> {
  const { rows } = await client.query<{ run_id: string; seq: number; type: string; ts: number; payload: string }>(ATTEMPT_EVENTS, [
    runId,
    ATTEMPT_RECORD_TYPES,
  ]);
  return rows.map((r) => eventFromRow({ ...r, seq: Number(r.seq), ts: Number(r.ts) }));
}

/** The candidate with its numbers as numbers, whatever the driver's parsing of int8. */
function numeric(row: Candidate): Candidate {
  return {
    ...row,
    current_step: Number(row.current_step),
    steps: Number(row.steps),
    last_seq: Number(row.last_seq),
    last_checkpoint_step: Number(row.last_checkpoint_step),
    pid: row.pid === null || row.pid === undefined ? null : Number(row.pid),
    hostname: row.hostname ?? null,
    instance: row.instance ?? null,
    heartbeat_at: row.heartbeat_at ?? null,
    lease_ms: row.lease_ms ?? null,
    machine: row.machine ?? null,
    start_time: row.start_time ?? null,
  };
}
