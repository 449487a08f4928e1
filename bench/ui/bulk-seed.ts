import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, SCHEMA_VERSION } from '../../core/store/index.js';
import { checkFingerprints, CODES, fingerprintSql, messageSql, ORIGIN, seedIssueLog, templateSql } from './bulk-issues.js';
import { bulkUsage, type RunPicks } from './bulk-usage.js';

/**
 * A large history for the benches and the history journey, written in bulk: `runs` finished runs
 * over the last 30 days and `errors` error occurrences spread over them, as single INSERT …
 * SELECT statements over a counter (no journal replay), then the rollups, groups and trends
 * derived from the errors with the same SQL migration 4 backfills them with, and what the runs'
 * agents spent (bulk-usage.ts); the run-outcome rollups come from migration 21's triggers. The
 * errors carry the fingerprints the product computes for their messages, 42 issues each with
 * its `new` log row (bulk-issues.ts), so the issue pages and the issues API open on it. The runs have no
 * journal events (their detail shows an empty timeline); a journey that opens one writes that
 * run through the store as usual.
 *
 * Bench-only: it writes the projection tables directly because replaying 1,000,000 journals
 * through the reducers takes tens of minutes. The schema is whatever openSqliteStore migrated to.
 */

const FLOWS: readonly [string, string][] = [
  ['examples/01-happy-path.prose', '01-happy-path'],
  ['examples/02-rate-limited-api.prose', '02-rate-limited-api'],
  ['examples/03-flaky-tests.prose', '03-flaky-tests'],
  ['examples/04-parallel-fan-out.prose', '04-parallel-fan-out'],
  ['examples/05-try-catch-finally.prose', '05-try-catch-finally'],
];

export interface BulkHistory {
  runs: number;
  errors: number;
  /** Oldest and newest start time. */
  from: number;
  to: number;
}

const DAY = 86_400_000;
/** Raised when the seed writes different rows: the cache's key. */
const SEED_REVISION = 2;

/** SQL CASE over i % n choosing from a list of strings. */
function pick(values: readonly string[], index: string): string {
  return `(CASE ${index} % ${values.length} ${values.map((v, k) => `WHEN ${k} THEN '${v.replace(/'/g, "''")}'`).join(' ')} END)`;
}

/** The SQL of the seed's choices for run `i`: the shared ones (bulk-usage.ts) and the runs' own names, messages and fates. */
interface SeedPicks extends RunPicks {
  flowName: string;
  message: string;
  cancelled: string;
}

function seedPicks(): SeedPicks {
  return {
    flow: pick(
      FLOWS.map((f) => f[0]),
      'i',
    ),
    flowName: pick(
      FLOWS.map((f) => f[1]),
      'i',
    ),
    code: pick(
      CODES.map((c) => c[0]),
      '(i / 12)',
    ),
    category: pick(
      CODES.map((c) => c[1]),
      '(i / 12)',
    ),
    message: messageSql('i'),
    fingerprint: fingerprintSql('i'),
    failed: '(i % 12 = 5)',
    cancelled: '(i % 50 = 7)',
    started: '@from + i * @step',
  };
}

/** The finished runs, a failed one carrying its ending error; `errors >= runs` gives every run one error counted. */
function insertRuns(db: Database.Database, picks: SeedPicks, counts: { runs: number; errors: number }, params: { from: number; step: number }): void {
  const { flow, flowName, code, category, message, failed, cancelled } = picks;
  const { runs, errors } = counts;
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO runs (id, flow, flow_name, status, started_at, ended_at, duration_ms, updated_at, last_seq,
       max_steps, concurrency, clock, default_agent, current_step, steps, last_checkpoint_step, task_count,
       attempt_count, error_count, resumed_from, retry_of, resume_step, last_error_code, last_error_category,
       last_error_message, next_attempt_at, cancel_command_id, cancel_reason, epoch, error, started_wall, ended_wall,
       ending_code, ending_category, ending_origin, ending_message, ending_step, ending_task_id, ending_attempt,
       ending_root_code, ending_chain)
     SELECT printf('run_bulk%07d', i), ${flow}, ${flowName},
       CASE WHEN ${failed} THEN 'failed' WHEN ${cancelled} THEN 'cancelled' ELSE 'completed' END,
       @from + i * @step, @from + i * @step + 500 + (i * 37 % 60000), 500 + (i * 37 % 60000), @from + i * @step + 500 + (i * 37 % 60000), 0,
       100, 4, 'real', NULL, 1 + i % 3, 1 + i % 3, 1 + i % 3, 1 + i % 3,
       1 + i % 3 + (i % 5 = 0), ${errors >= runs ? 1 : 0} + (i % 5 = 0), NULL, NULL, 0,
       CASE WHEN ${failed} THEN ${code} END, CASE WHEN ${failed} THEN ${category} END, CASE WHEN ${failed} THEN ${message} END,
       NULL, NULL, NULL, 0, NULL, @from + i * @step, @from + i * @step + 500 + (i * 37 % 60000),
       CASE WHEN ${failed} THEN ${code} END, CASE WHEN ${failed} THEN ${category} END, CASE WHEN ${failed} THEN '${ORIGIN}' END,
       CASE WHEN ${failed} THEN ${message} END, CASE WHEN ${failed} THEN 1 END, CASE WHEN ${failed} THEN '1:0' END,
       CASE WHEN ${failed} THEN 1 END, CASE WHEN ${failed} THEN ${code} END,
       CASE WHEN ${failed} THEN json_array(json_object('seq', 5, 'code', ${code}, 'category', ${category}, 'origin', '${ORIGIN}',
         'message', ${message}, 'step', 1, 'taskId', '1:0', 'attempt', 1, 'how', NULL)) END
     FROM n`,
  ).run(runs, params);
}

/** The error occurrences, one per run from the newest back, then a second pass; a failed run's first one ended it. */
function insertErrors(db: Database.Database, picks: SeedPicks, counts: { runs: number; errors: number }, params: { from: number; step: number }): void {
  const { flow, code, category, message, fingerprint, failed } = picks;
  const { runs, errors } = counts;
  // Error k belongs to run (runs - 1 - k % runs): the newest runs get errors first (cast: a REAL
  // run index would write "request 10097.0" into the messages). better-sqlite3
  // binds numbers as REAL, so k / runs is cast back to an integer: a fractional ts or seq (what
  // this wrote before) is no time ingest ever stores, and every fraction made a rollup bucket
  // of its own (a day table of 490,000 rows where ingest keeps 12,000).
  db.prepare(
    `WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k + 1 < ?),
       e(k, i) AS (SELECT k, CAST(? - 1 - k % ? AS INTEGER) FROM n)
     INSERT INTO errors (run_id, seq, ts, category, code, origin, message, fingerprint, caught, retrying, recoverable,
       recovery_hint, context, timestamp, project, flow, step, task_id, attempt, disposition, ending)
     SELECT printf('run_bulk%07d', i), 5 + CAST(k / ? AS INTEGER), @from + i * @step + 100 + CAST(k / ? AS INTEGER), ${category}, ${code}, '${ORIGIN}', ${message},
       ${fingerprint}, 0, NOT ${failed} OR k >= ?, 1, NULL, '{}', @from + i * @step, NULL, ${flow}, 1, '1:0', 1,
       CASE WHEN NOT ${failed} OR k >= ? THEN 'handled' ELSE 'unhandled' END, CASE WHEN NOT ${failed} OR k >= ? THEN 0 ELSE 1 END
     FROM e`,
  ).run(errors, runs, runs, runs, runs, runs, runs, runs, params);
  // Runs with more errors than the one counted above (a second pass over the newest runs).
  if (errors > runs) db.prepare(`UPDATE runs SET error_count = error_count + 1 WHERE id IN (SELECT run_id FROM errors WHERE seq > 5)`).run();
}

/** What the product derives from the errors and failed runs: the rollups per minute, hour and day, the issue trends and the error groups. */
function insertDerived(db: Database.Database): void {
  const floor = (size: number): string => `ts - (((ts % ${size}) + ${size}) % ${size})`;
  for (const [table, size] of [
    ['error_rollups', 60_000],
    ['error_rollups_hour', 3_600_000],
    ['error_rollups_day', DAY],
  ] as const) {
    db.exec(`INSERT INTO ${table} (bucket, category, origin, code, flow, disposition, count)
      SELECT ${floor(size)}, category, origin, code, flow, disposition, COUNT(*) FROM errors GROUP BY 1, 2, 3, 4, 5, 6`);
  }
  const endFloor = (size: number): string => `ended_wall - (((ended_wall % ${size}) + ${size}) % ${size})`;
  for (const [table, size] of [
    ['failure_rollups', 60_000],
    ['failure_rollups_hour', 3_600_000],
    ['failure_rollups_day', DAY],
  ] as const) {
    db.exec(`INSERT INTO ${table} (bucket, category, origin, code, root_code, flow, count)
      SELECT ${endFloor(size)}, ending_category, ending_origin, ending_code, ending_root_code, flow, COUNT(*)
      FROM runs WHERE status = 'failed' GROUP BY 1, 2, 3, 4, 5, 6`);
  }
  for (const [table, size] of [
    ['error_group_trend_hour', 3_600_000],
    ['error_group_trend_day', DAY],
  ] as const) {
    db.exec(`INSERT INTO ${table} (bucket, fingerprint, flow, disposition, count)
      SELECT ${floor(size)}, fingerprint, flow, disposition, COUNT(*) FROM errors GROUP BY 1, 2, 3, 4`);
  }
  db.exec(`INSERT INTO error_groups (fingerprint, category, code, origin, template, last_message, count, unhandled, first_seen, last_seen)
    SELECT fingerprint, MIN(category), MIN(code), MIN(origin), ${templateSql('fingerprint')}, MAX(message), COUNT(*), SUM(disposition = 'unhandled'), MIN(ts), MAX(ts)
    FROM errors GROUP BY fingerprint`);
}

/**
 * Writes the history into a new database at `path`. Every 12th run failed (its last error is
 * its ending error: unhandled, the one failure of the run), every 50th was cancelled, the rest
 * completed; errors go one per run from the newest run back, then a second per run, until
 * `errors` are written (retried ones, handled). (Cancelled runs get no ending error here: the
 * run list's code filter never asks for SYSTEM_CANCELLED in the journeys that use this.)
 */
export function bulkSeed(path: string, options: { runs: number; errors: number; now: number }): BulkHistory {
  openSqliteStore({ path }).close();
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const { runs, errors, now } = options;
    const from = now - 30 * DAY;
    const step = Math.max(1, Math.floor((30 * DAY) / Math.max(1, runs)));
    const picks = seedPicks();
    db.transaction(() => {
      insertRuns(db, picks, { runs, errors }, { from, step });
      bulkUsage(db, runs, picks, { from, step }, fingerprintSql('CAST(substr(r.id, 9) AS INTEGER)'));
      insertErrors(db, picks, { runs, errors }, { from, step });
      insertDerived(db);
      seedIssueLog(db);
    })();
    checkFingerprints(db, runs, 1_000);
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { runs, errors, from, to: from + (runs - 1) * step };
  } finally {
    db.close();
  }
}

/**
 * The cached history of this size in the OS temp directory, generated once (into a temporary
 * name, renamed when complete, so an interrupted generation is never reused). Returns its path
 * and how long generating took (0 when cached). A cached database keeps its original times; one
 * generated more than `maxAgeMs` ago is generated again.
 */
export function cachedHistory(runs: number, errors: number, maxAgeMs = Number.POSITIVE_INFINITY): { path: string; generatedMs: number } {
  const dir = join(tmpdir(), 'hivewatch-bench');
  mkdirSync(dir, { recursive: true });
  // Keyed by the schema: a cached history is never migrated in place (1,000,000 rows of backfill);
  // and by what the seed writes, so a file from an older seed (made-up fingerprints) is not reused.
  const path = join(dir, `history-${runs}-runs-${errors}-errors-schema${SCHEMA_VERSION}-seed${SEED_REVISION}.db`);
  // The history ends when it was generated (kept beside it: serve writes to the file, so its mtime
  // says nothing): past maxAgeMs its newest range (1 h) would be empty.
  const stamp = `${path}.generated-at`;
  const generatedAt = existsSync(path) && existsSync(stamp) ? Number(readFileSync(stamp, 'utf8')) : Number.NaN;
  if (Date.now() - generatedAt <= maxAgeMs) return { path, generatedMs: 0 };
  for (const suffix of ['', '-wal', '-shm', '.generated-at']) rmSync(`${path}${suffix}`, { force: true });
  const partial = `${path}.partial`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
  const started = performance.now();
  const now = Date.now();
  bulkSeed(partial, { runs, errors, now });
  for (const suffix of ['-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
  renameSync(partial, path);
  writeFileSync(stamp, String(now));
  return { path, generatedMs: Math.round(performance.now() - started) };
}
