import type Database from 'better-sqlite3';
import { costBackfillSql } from '../../core/store/migrations/v20-v29/v21-run-outcomes-and-cost.js';

/**
 * What the bulk history's agents spent (bulk-seed.ts), written as the journal writers would keep
 * it: one `attempt_usage` row per attempt (a run with a second attempt failed its first), its
 * run's sums in `run_usage` with a failed run's fate, the flow-day sums, and the cost rollups
 * from the same statements migration 21 backfills them with. Every tenth run's agent reported
 * tokens but no cost. The run-outcome rollups need nothing here: triggers on `runs` keep them.
 */

/** The SQL of the seed's own choices for run `i`, so both files pick the same flow, code and fate. */
export interface RunPicks {
  flow: string;
  code: string;
  category: string;
  /** Run `i`'s errors' fingerprint (bulk-issues.ts). */
  fingerprint: string;
  /** True when run `i` failed. */
  failed: string;
  /** Run `i`'s start time (ms). */
  started: string;
}

const DAY = 86_400_000;

export function bulkUsage(db: Database.Database, runs: number, picks: RunPicks, params: { from: number; step: number }, fateFingerprint: string): void {
  const attempts = '(1 + (i % 5 = 0))';
  // Attempt a of run i: it failed when a later attempt followed, or when it was the run's last and the run failed.
  const failed = `(CASE WHEN a < ${attempts} OR ${picks.failed} THEN 1 ELSE 0 END)`;
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?),
       t(i, a) AS (SELECT i, 1 FROM n UNION ALL SELECT i, 2 FROM n WHERE i % 5 = 0)
     INSERT INTO attempt_usage (run_id, task_id, attempt, wall, flow, failed, counted, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, cost_usd, source, err_category, err_origin, err_code, err_fingerprint)
     SELECT printf('run_bulk%07d', i), '1:0', a, ${picks.started} + 100 * a, ${picks.flow}, ${failed}, 1,
       200 + (i * 13 % 4000), 20 + (i * 7 % 600), i * 11 % 3000, 0,
       CASE WHEN i % 10 = 3 THEN NULL ELSE 0.002 + (i % 37) * 0.003 END, 'result',
       CASE WHEN ${failed} = 1 THEN ${picks.category} END, CASE WHEN ${failed} = 1 THEN 'runtime:fake' END,
       CASE WHEN ${failed} = 1 THEN ${picks.code} END, CASE WHEN ${failed} = 1 THEN ${picks.fingerprint} END
     FROM t`,
  ).run(runs, params);
  const sums = `COUNT(*), SUM(failed), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(cache_write_tokens),
    SUM(COALESCE(cost_usd, 0)), SUM(CASE WHEN failed = 1 THEN COALESCE(cost_usd, 0) ELSE 0 END), SUM(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END)`;
  const columns =
    'attempts, failed_attempts, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, failed_cost_usd, unknown_cost_attempts';
  db.exec(`INSERT INTO run_usage (run_id, ${columns}) SELECT run_id, ${sums} FROM attempt_usage GROUP BY run_id`);
  // A failed run's fate: its ending error's issue (`fateFingerprint`: SQL over the run row `r`).
  db.exec(`UPDATE run_usage SET fate_category = r.ending_category, fate_origin = r.ending_origin, fate_code = r.ending_code,
      fate_root_code = r.ending_root_code, fate_fingerprint = ${fateFingerprint}
    FROM runs AS r WHERE r.id = run_usage.run_id AND r.status = 'failed'`);
  db.exec(
    `INSERT INTO usage_days (flow, day, ${columns}) SELECT flow, (wall / ${DAY}) * ${DAY}, ${sums} FROM attempt_usage GROUP BY flow, (wall / ${DAY}) * ${DAY}`,
  );
  for (const sql of costBackfillSql()) db.exec(sql);
}
