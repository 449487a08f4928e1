import type pg from 'pg';
import type { HivewatchEvent } from '../../engine/events.js';
import type { RunOwner } from '../hosts.js';
import { eventFromRow } from '../journal.js';
import { interruptionEvents, leftoverGroups, type Candidate, type RecoveredRun, type RecoverOptions } from '../recovery.js';
import { ACTIVE_RUN_STATUSES } from '../schema.js';
import { isLeaseAlive } from './hosts.js';
import { inTransaction } from './transaction.js';
import type { PostgresJournalWriter } from './writer.js';

type PgCandidate = Candidate & { heartbeat_at: number | null; lease_ms: number | null };

/** The runs recovery looks at, with their host's lease (read without locking anything). */
const CANDIDATES = `SELECT r.id, r.flow, r.current_step, r.steps, r.last_seq, r.last_checkpoint_step,
    h.pid, h.hostname, h.instance, hs.heartbeat_at, hs.lease_ms
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
  WHERE run_id = $1 AND type IN ('attemptProcess', 'attemptSucceeded', 'attemptFailed') ORDER BY seq`;

/**
 * Recovery on a shared database: every queued / running / cancelling run whose host's lease has
 * run out (or that has no host) gets the same `errorOccurred` + `runInterrupted` as on SQLite,
 * in one transaction with the check. A run whose host holds its lease is left alone, unless
 * `force`; even then its agents are not taken from it. Agent processes a dead host left can only
 * be ended on that host's machine: `leftoverGroups` ends them here when the host was this
 * machine, and otherwise says per process group that it ran elsewhere and was left alone.
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
      const candidates = await client.query<PgCandidate>(CANDIDATES, [ACTIVE_RUN_STATUSES, options.runId ?? null]);
      const checkedAt = now();
      const chosen = new Map<string, { owner: RunOwner | undefined; alive: boolean; leaseRow: boolean }>();
      for (const row of candidates.rows) {
        const run = numeric(row);
        const owner: RunOwner | undefined =
          run.pid === null || run.hostname === null || run.instance === null
            ? undefined
            : { pid: run.pid, hostname: run.hostname, instance: run.instance };
        const lease = row.heartbeat_at === null || row.lease_ms === null ? null : { heartbeat_at: row.heartbeat_at, lease_ms: row.lease_ms };
        const alive = owner !== undefined && isLeaseAlive(lease, checkedAt);
        if (alive && !options.force) continue;
        chosen.set(run.id, { owner, alive, leaseRow: lease !== null });
      }
      const runs: RecoveredRun[] = [];
      const events: HivewatchEvent[] = [];
      if (chosen.size === 0) return { runs, events, walls: [], commitSeqs: [] };
      const locked = await client.query<PgCandidate>(LOCK, [[...chosen.keys()], ACTIVE_RUN_STATUSES]);
      for (const row of locked.rows) {
        const run = numeric(row);
        const { owner, alive, leaseRow } = chosen.get(run.id)!;
        // A forced recovery of a run whose host still holds its lease must not take its agents from it.
        const processes = alive ? [] : leftoverGroups(run.id, owner, await attemptEvents(client, run.id), options.processes);
        events.push(...interruptionEvents(run, owner?.pid ?? null, interruptionMessage(run.id, owner, leaseRow), processes, now()));
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

function interruptionMessage(runId: string, owner: RunOwner | undefined, leaseRow: boolean): string {
  if (!owner) return `run ${runId} was interrupted: no live host holds it`;
  const host = `its host (pid ${owner.pid} on ${owner.hostname})`;
  return leaseRow ? `run ${runId} was interrupted: ${host} let its lease expire` : `run ${runId} was interrupted: ${host} is gone`;
}

async function attemptEvents(client: pg.PoolClient, runId: string): Promise<HivewatchEvent[]> {
  const { rows } = await client.query<{ run_id: string; seq: number; type: string; ts: number; payload: string }>(ATTEMPT_EVENTS, [runId]);
  return rows.map((r) => eventFromRow({ ...r, seq: Number(r.seq), ts: Number(r.ts) }));
}

/** The candidate with its numbers as numbers, whatever the driver's parsing of int8. */
function numeric(row: Omit<PgCandidate, 'pid' | 'hostname' | 'instance'> & Partial<Candidate>): Candidate {
  return {
    id: row.id,
    flow: row.flow,
    current_step: Number(row.current_step),
    steps: Number(row.steps),
    last_seq: Number(row.last_seq),
    last_checkpoint_step: Number(row.last_checkpoint_step),
    pid: row.pid === null || row.pid === undefined ? null : Number(row.pid),
    hostname: row.hostname ?? null,
    instance: row.instance ?? null,
  };
}
