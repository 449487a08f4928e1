import type pg from 'pg';
import { keepResumeSources, type PruneOptions, type PruneReport } from '../../maintenance/prune.js';
import { FailureDeltas, failureOf } from '../../rollups/failure-rollups.js';
import { addErrorContribution, emptyGrainDeltas } from '../../rollups/rollups.js';
import { TERMINAL_RUN_STATUSES } from '../../../common/run-statuses.js';
import { type ErrorDisposition, type RunRow } from '../../projection/schema.js';
import { rowFromDb } from '../../projection/row-codec.js';
import { RUNS } from '../../projection/table-specs.js';
import { StoreError } from '../../store-error.js';
import { addFailures, applyRollupDeltas } from '../writer/rollups.js';
import { lockErrorFacts } from '../writer/fact-locks.js';
import { inTransaction } from '../connection/transaction.js';
import { pruneUsageSql } from '../../rollups/usage-rollups.js';

/** Tables keyed by run whose rows go with a pruned run (events and runs are counted separately). */
const RUN_TABLES = ['errors', 'attempts', 'tasks', 'steps', 'checkpoints', 'run_hosts'] as const;

type Doomed = { ts: number; category: string; origin: string; code: string; flow: string; fingerprint: string; disposition: ErrorDisposition };

/**
 * Prune on PostgreSQL, with SQLite's meaning (prune.ts): old terminal runs go with every row
 * derived from them, their errors are subtracted from every rollup grain and from the error
 * groups, their failures from the failure rollups, in the same transaction (rows reaching zero are deleted; a group that lost members gets
 * its first / last seen recomputed), and a run another remaining run was resumed from is kept.
 *
 * The candidate runs are locked (FOR UPDATE): a second prune running at the same time waits,
 * then finds them deleted, so no error is subtracted twice. The subtractions are atomic
 * upserts, so hosts adding to the same rollups meanwhile lose nothing.
 */
export async function prunePg(pool: pg.Pool, now: () => number, options: PruneOptions): Promise<PruneReport> {
  const olderThan = options.olderThanMs;
  if (typeof olderThan !== 'number' || !Number.isFinite(olderThan) || olderThan < 0) {
    throw new StoreError('invalid_argument', 'olderThanMs must be a non-negative number of milliseconds');
  }
  const cutoff = now() - olderThan;
  return inTransaction(pool, (client) => pruneIn(client, cutoff));
}

async function pruneIn(client: pg.PoolClient, cutoff: number): Promise<PruneReport> {
  const old = await client.query<{ id: string }>('SELECT id FROM runs WHERE status = ANY($1::text[]) AND ended_at < $2 ORDER BY id FOR UPDATE', [
    TERMINAL_RUN_STATUSES,
    cutoff,
  ]);
  const candidates = new Set(old.rows.map((r) => r.id));
  const links = await client.query<{ id: string; resumed_from: string }>('SELECT id, resumed_from FROM runs WHERE resumed_from IS NOT NULL');
  const keptForResume = keepResumeSources(candidates, links.rows);
  if (candidates.size === 0) return { cutoff, runs: 0, events: 0, errors: 0, keptForResume };
  const ids = [...candidates];

  const doomed = await client.query<Doomed>('SELECT ts, category, origin, code, flow, fingerprint, disposition FROM errors WHERE run_id = ANY($1::text[])', [
    ids,
  ]);
  const deltas = emptyGrainDeltas();
  const fingerprints = new Map<string, { count: number; unhandled: number }>();
  for (const e of doomed.rows) {
    addErrorContribution(deltas, { ...e, ts: Number(e.ts) }, -1);
    const lost = fingerprints.get(e.fingerprint) ?? { count: 0, unhandled: 0 };
    lost.count += 1;
    lost.unhandled += e.disposition === 'unhandled' ? 1 : 0;
    fingerprints.set(e.fingerprint, lost);
  }
  // Their failures leave the failure rollups (one per run that ended failed).
  const failures = new FailureDeltas();
  const failed = await client.query<Record<string, unknown>>("SELECT * FROM runs WHERE status = 'failed' AND id = ANY($1::text[])", [ids]);
  for (const r of failed.rows) {
    const failure = failureOf(rowFromDb<RunRow>(RUNS, r));
    if (failure) failures.add(failure, -1);
  }

  // Deleting errors fires migration 18's triggers on rows writers share (fact-locks.ts).
  await lockErrorFacts(client);
  for (const sql of pruneUsageSql('run_id = ANY($1::text[])')) await client.query(sql, sql.includes('$1') ? [ids] : []);
  for (const table of RUN_TABLES) await client.query(`DELETE FROM ${table} WHERE run_id = ANY($1::text[])`, [ids]);
  const events = await client.query('DELETE FROM events WHERE run_id = ANY($1::text[])', [ids]);
  const runs = await client.query('DELETE FROM runs WHERE id = ANY($1::text[])', [ids]);

  await applyRollupDeltas(client, deltas);
  await addFailures(client, failures);
  const lost = [...fingerprints].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (lost.length > 0) {
    await client.query(
      `UPDATE error_groups AS g SET count = g.count - l.count, unhandled = g.unhandled - l.unhandled
       FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS l (fingerprint, count, unhandled)
       WHERE g.fingerprint = l.fingerprint`,
      [lost.map(([fp]) => fp), lost.map(([, l]) => l.count), lost.map(([, l]) => l.unhandled)],
    );
    const fps = lost.map(([fp]) => fp);
    await client.query('DELETE FROM error_groups WHERE fingerprint = ANY($1::text[]) AND count <= 0', [fps]);
    await client.query(
      `UPDATE error_groups AS g SET
         first_seen = (SELECT MIN(ts) FROM errors WHERE fingerprint = g.fingerprint),
         last_seen = (SELECT MAX(ts) FROM errors WHERE fingerprint = g.fingerprint),
         last_message = (SELECT message FROM errors WHERE fingerprint = g.fingerprint ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 1)
       WHERE g.fingerprint = ANY($1::text[])`,
      [fps],
    );
  }
  return { cutoff, runs: runs.rowCount ?? 0, events: events.rowCount ?? 0, errors: doomed.rows.length, keptForResume };
}
