import type Database from 'better-sqlite3';
import { FailureDeltas, failureOf } from '../rollups/failure-rollups.js';
import { pruneUsageSql } from '../rollups/usage-rollups.js';
import { RollupWriter } from '../rollups/rollup-writer.js';
import { addErrorContribution, emptyGrainDeltas } from '../rollups/rollups.js';
import { TERMINAL_RUN_STATUSES } from '../../common/run-statuses.js';
import { type ErrorDisposition, type RunRow } from '../projection/schema.js';
import { rowFromDb } from '../projection/row-codec.js';
import { RUNS } from '../projection/table-specs.js';
import { StoreError } from '../store-error.js';

export interface PruneOptions {
  /** Delete terminal runs that ended more than this long before now. */
  olderThanMs: number;
}

export interface PruneReport {
  cutoff: number;
  runs: number;
  events: number;
  errors: number;
  /** Old runs kept because a remaining run was resumed from them (resume needs their journal). */
  keptForResume: number;
}

/**
 * Takes out of `candidates` every run a remaining run was resumed from (transitively: a kept
 * run's own source is kept too) and returns how many were kept.
 */
export function keepResumeSources(candidates: Set<string>, links: readonly { id: string; resumed_from: string }[]): number {
  let kept = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (const link of links) {
      if (!candidates.has(link.id) && candidates.delete(link.resumed_from)) {
        kept += 1;
        changed = true;
      }
    }
  }
  return kept;
}

/**
 * Deletes old terminal runs with every row derived from them, and subtracts their errors from
 * the rollups (every grain) and the error groups, and their failures from the failure rollups,
 * in the same transaction, so aggregates stay
 * equal to what remains; rows that reach zero are deleted, and the first/last seen of a group
 * that lost members is recomputed from the (fingerprint, ts) index (ts: the wall time). A run another remaining run
 * was resumed from is kept: that run's resume point is built from the source's journal.
 */
export function prune(db: Database.Database, now: () => number, options: PruneOptions): PruneReport {
  const olderThan = options.olderThanMs;
  if (typeof olderThan !== 'number' || !Number.isFinite(olderThan) || olderThan < 0) {
    throw new StoreError('invalid_argument', 'olderThanMs must be a non-negative number of milliseconds');
  }
  const cutoff = now() - olderThan;
  const rollups = new RollupWriter(db);

  return db
    .transaction((): PruneReport => {
      const candidates = new Set(
        (
          db
            .prepare(`SELECT id FROM runs WHERE status IN (${TERMINAL_RUN_STATUSES.map(() => '?').join(', ')}) AND ended_at < ?`)
            .all(...TERMINAL_RUN_STATUSES, cutoff) as { id: string }[]
        ).map((r) => r.id),
      );
      const links = db.prepare('SELECT id, resumed_from FROM runs WHERE resumed_from IS NOT NULL').all() as {
        id: string;
        resumed_from: string;
      }[];
      const keptForResume = keepResumeSources(candidates, links);
      if (candidates.size === 0) return { cutoff, runs: 0, events: 0, errors: 0, keptForResume };

      db.exec('CREATE TEMP TABLE IF NOT EXISTS prune_runs (id TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM temp.prune_runs;');
      const insert = db.prepare('INSERT INTO temp.prune_runs (id) VALUES (?)');
      for (const id of candidates) insert.run(id);

      const doomed = db.prepare(
        'SELECT ts, category, origin, code, flow, fingerprint, disposition FROM errors WHERE run_id IN (SELECT id FROM temp.prune_runs)',
      );
      const deltas = emptyGrainDeltas();
      const fingerprints = new Map<string, { count: number; unhandled: number }>();
      let errors = 0;
      type Doomed = { ts: number; category: string; origin: string; code: string; flow: string; fingerprint: string; disposition: ErrorDisposition };
      for (const e of doomed.iterate() as IterableIterator<Doomed>) {
        addErrorContribution(deltas, e, -1);
        const lost = fingerprints.get(e.fingerprint) ?? { count: 0, unhandled: 0 };
        lost.count += 1;
        lost.unhandled += e.disposition === 'unhandled' ? 1 : 0;
        fingerprints.set(e.fingerprint, lost);
        errors += 1;
      }
      // Their failures leave the failure rollups (one per run that ended failed).
      const failures = new FailureDeltas();
      const failed = db.prepare("SELECT * FROM runs WHERE status = 'failed' AND id IN (SELECT id FROM temp.prune_runs)");
      for (const r of failed.all() as Record<string, unknown>[]) {
        const failure = failureOf(rowFromDb<RunRow>(RUNS, r));
        if (failure) failures.add(failure, -1);
      }

      const inPruned = 'run_id IN (SELECT id FROM temp.prune_runs)';
      for (const sql of pruneUsageSql(inPruned)) db.prepare(sql).run();
      for (const table of ['errors', 'attempts', 'tasks', 'steps', 'checkpoints', 'run_hosts']) {
        db.prepare(`DELETE FROM ${table} WHERE ${inPruned}`).run();
      }
      const events = db.prepare(`DELETE FROM events WHERE ${inPruned}`).run().changes;
      const runs = db.prepare('DELETE FROM runs WHERE id IN (SELECT id FROM temp.prune_runs)').run().changes;

      rollups.apply(deltas);
      rollups.applyFailures(failures);
      const subtract = db.prepare('UPDATE error_groups SET count = count - ?, unhandled = unhandled - ? WHERE fingerprint = ?');
      const drop = db.prepare('DELETE FROM error_groups WHERE fingerprint = ? AND count <= 0');
      const bounds = db.prepare(
        `UPDATE error_groups SET
           first_seen = (SELECT MIN(ts) FROM errors WHERE fingerprint = @fp),
           last_seen = (SELECT MAX(ts) FROM errors WHERE fingerprint = @fp),
           last_message = (SELECT message FROM errors WHERE fingerprint = @fp ORDER BY ts DESC, run_id DESC, seq DESC LIMIT 1)
         WHERE fingerprint = @fp`,
      );
      for (const [fingerprint, lost] of fingerprints) {
        subtract.run(lost.count, lost.unhandled, fingerprint);
        if (drop.run(fingerprint).changes === 0) bounds.run({ fp: fingerprint });
      }
      db.exec('DELETE FROM temp.prune_runs');
      return { cutoff, runs, events, errors, keptForResume };
    })
    .immediate();
}
